import { parseOrThrow } from '@conduit/connectors';
import type { Context } from 'hono';
import type { z } from 'zod';
import { ApiError } from './problem.ts';

/** Reads a JSON body and validates it; malformed JSON and every schema problem are 400s with paths. */
export async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  return parseJsonText(await c.req.text(), schema);
}

/** A body's text, already read, as readJson reads it: parsed and validated, with the same 400s. */
export function parseJsonText<S extends z.ZodType>(text: string, schema: S): z.infer<S> {
  let body: unknown;
  try {
    body = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw new ApiError(400, 'invalid_request', 'the request body is not valid JSON', [
      { path: '', message: 'invalid JSON' },
    ]);
  }
  return parseOrThrow(schema, body, '', 'invalid_request', 'invalid request body');
}
