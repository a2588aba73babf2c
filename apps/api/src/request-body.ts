import { parseOrThrow } from '@conduit/connectors';
import type { Context } from 'hono';
import type { z } from 'zod';
import { ApiError } from './problem.ts';

/** Reads a JSON body and validates it; malformed JSON and every schema problem are 400s with paths. */
export async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  let body: unknown;
  try {
    const text = await c.req.text();
    body = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw new ApiError(400, 'invalid_request', 'the request body is not valid JSON', [
      { path: '', message: 'invalid JSON' },
    ]);
  }
  return parseOrThrow(schema, body, '', 'invalid_request', 'invalid request body');
}
