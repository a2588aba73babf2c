import type { KindCatalog } from '@conduit/connectors';
import type { z } from 'zod';
import { ExecuteBody } from '../openapi/connector-bodies.ts';
import { parseJsonText } from '../request-body.ts';
import { auditParams } from './audit-params.ts';
import { deepFreeze, KeptValues } from './kept-values.ts';

/** An execute request's body as the route reads it: validated, and its params as the audit trail keeps them. */
export interface ExecuteEnvelope {
  readonly body: z.infer<typeof ExecuteBody>;
  readonly auditParams: unknown;
}

/** A body longer than this is read every time (its key would outweigh what is kept). */
const MAX_KEPT_TEXT = 8 * 1024;

/**
 * Reads execute bodies, keeping the last `entries` searches by their connector kind and exact text: a search asked
 * again (a dashboard's) is not parsed, validated and redacted again, and brings the same params object, so the search
 * service finds its plan key without serializing the params (search-service.ts). Both are pure functions of the text
 * and the kind's catalog. Only searches are kept, deeply frozen (they are shared by every request that sends the same
 * text); other actions are read every time, their params handed to connectors as fresh objects.
 */
export function executeEnvelopes(entries: number): (catalog: KindCatalog, text: string) => ExecuteEnvelope {
  const kept = new KeptValues<ExecuteEnvelope>(entries, MAX_KEPT_TEXT);
  return (catalog, text) =>
    kept.get(
      `${catalog.connectorType}\n${text}`,
      () => {
        const body = parseJsonText(text, ExecuteBody);
        return { body, auditParams: auditParams(catalog, body.params) };
      },
      (envelope) => {
        if (envelope.body.action !== 'search') return false;
        deepFreeze(envelope);
        return true;
      },
    );
}
