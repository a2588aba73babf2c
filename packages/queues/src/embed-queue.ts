import { z } from 'zod';

/** Texts per job: a write of a thousand records makes a few jobs, each done in seconds on one core. */
export const EMBED_JOB_TEXTS = 256;

/**
 * Texts the copy holds without their vector (search by meaning, docs/search.md): the worker embeds them, off the
 * sync's path, and sets the vectors on the documents that still hold those texts. The texts ride in the job (at
 * most a few KB each, cut to what the model reads) so the job needs no read of the copy.
 */
export const EmbedTextsJob = z.object({
  connectorType: z.string().min(1),
  entity: z.string().min(1),
  connectorId: z.string().min(1),
  texts: z
    .array(z.object({ id: z.string().min(1), hash: z.string().min(1), text: z.string() }))
    .min(1)
    .max(EMBED_JOB_TEXTS),
});
export type EmbedTextsJob = z.infer<typeof EmbedTextsJob>;

export const EMBED_JOB_NAME = 'embed-texts';

export function embedQueueName(namespace: string): string {
  return `${namespace}-embed`;
}
