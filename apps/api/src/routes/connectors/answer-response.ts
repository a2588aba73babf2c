import type { Answer } from '@conduit/answer-cache';
import type { Context } from 'hono';
import { z } from 'zod';

/** `If-None-Match` on search and SQL: the ETag of the answer the caller holds (docs/api.md, "Answers from memory"). */
export const IfNoneMatchHeader = z.string().optional().meta({
  description:
    'The ETag of an answer to the same question: 304 without a body while it is still the answer (docs/api.md)',
  example: 'W/"3q2-7wEAAAB7ImRhdGEiOltd"',
});

/** The 304 a search or SQL route documents. */
export const NOT_MODIFIED = {
  description: 'If-None-Match named the current answer’s ETag: the caller’s answer is still the answer',
};

/**
 * A search or SQL answer as the response: its body (already JSON) with its ETag, or a 304 with the ETag alone. A 304
 * answers a POST here, as RFC 9110 §13.1.2 gives it to GET: these POSTs only read (docs/api.md).
 */
export function answerResponse(c: Context, answer: Answer): Response {
  if (answer.status === 304) return c.body(null, 304, { etag: answer.etag });
  return c.body(answer.body, 200, { 'content-type': 'application/json', etag: answer.etag });
}
