import { parseOrThrow } from '@conduit/connectors';
import type { Context } from 'hono';
import type { z } from 'zod';
import { ApiError } from './problem.ts';

/**
 * The deepest nesting of arrays and objects a JSON body may have. Validation, redaction and canonical JSON walk a
 * value recursively, and a body of `[` x 100,000 (200 KB) would overflow the stack in each; no request of ours needs
 * more than a few levels (docs/api.md).
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/**
 * Where the JSON `text` first nests deeper than `max` levels (the depth and the character's offset), or null. One
 * pass over the text without recursion: strings are skipped whole (the next quote not escaped), so brackets inside
 * them do not count. Text that is not JSON is scanned as far as it goes; JSON.parse then says what is wrong with it.
 */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): { depth: number; offset: number } | null {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      let end = i;
      for (;;) {
        end = text.indexOf('"', end + 1);
        if (end === -1) return null;
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++;
        if (slashes % 2 === 0) break;
      }
      i = end;
    } else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      depth++;
      if (depth > max) return { depth, offset: i };
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) {
      depth--;
    }
  }
  return null;
}

/** Refuses (400 invalid_request) JSON text nested deeper than MAX_JSON_DEPTH, before anything parses or walks it. */
export function assertJsonDepth(text: string): void {
  const deep = jsonTooDeep(text);
  if (deep === null) return;
  throw new ApiError(400, 'invalid_request', `the request body is nested deeper than ${MAX_JSON_DEPTH} levels`, {
    errors: [
      { path: '', message: `nested ${deep.depth} levels deep at character ${deep.offset} (at most ${MAX_JSON_DEPTH})` },
    ],
  });
}

/** A JSON body's value: refused when nested too deep (assertJsonDepth) or malformed; an empty body is `{}`. */
export function parseJsonValue(text: string): unknown {
  assertJsonDepth(text);
  try {
    return text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    throw new ApiError(400, 'invalid_request', 'the request body is not valid JSON', {
      errors: [{ path: '', message: 'invalid JSON' }],
      cause: error,
    });
  }
}

/** Reads a JSON body and validates it; malformed JSON and every schema problem are 400s with paths. */
export async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  return parseJsonText(await c.req.text(), schema);
}

/** A body's text, already read, as readJson reads it: parsed and validated, with the same 400s. */
export function parseJsonText<S extends z.ZodType>(text: string, schema: S): z.infer<S> {
  return parseOrThrow(schema, parseJsonValue(text), '', 'invalid_request', 'invalid request body');
}
