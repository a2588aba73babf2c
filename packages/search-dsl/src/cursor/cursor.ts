import { createHash, createHmac, type KeyObject, timingSafeEqual } from 'node:crypto';
import canonicalize from 'canonicalize';
import { z } from 'zod';
import { SearchQueryError } from '../errors.ts';

/** What a cursor is bound to: the same connector, entity and query (filter, sort, fields; not the page size). */
export type CursorBinding = { readonly connectorId: string; readonly entity: string; readonly queryHash: string };

const Payload = z.strictObject({
  v: z.literal(1),
  c: z.string(),
  e: z.string(),
  q: z.string(),
  a: z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])),
});

export type SearchAfter = z.infer<typeof Payload>['a'];

/**
 * The HMAC key cursors are signed with. A KeyObject (node:crypto createSecretKey) is prepared once; raw bytes
 * or a string are prepared again on every signature.
 */
export type CursorKey = string | Uint8Array | KeyObject;

/** Stable hash of the parts of a query a cursor depends on (key order does not matter). */
export function hashQuery(parts: unknown): string {
  // RFC 8785 canonical JSON: keys in order, so the same query hashes the same however its keys were written.
  return createHash('sha256')
    .update(canonicalize(parts) ?? 'null')
    .digest('base64url')
    .slice(0, 22);
}

function sign(body: string, key: CursorKey): Buffer {
  return createHmac('sha256', key).update(body).digest();
}

/** An opaque, HMAC-SHA256-signed cursor holding the `search_after` values of the last returned hit. */
export function encodeCursor(searchAfter: SearchAfter, binding: CursorBinding, key: CursorKey): string {
  const body = Buffer.from(
    JSON.stringify({ v: 1, c: binding.connectorId, e: binding.entity, q: binding.queryHash, a: searchAfter }),
  ).toString('base64url');
  return `${body}.${sign(body, key).toString('base64url')}`;
}

/**
 * Verifies a cursor and returns its `search_after` values.
 *
 * @throws SearchQueryError `invalid_cursor` at `/cursor` when it is forged, altered, or from another query,
 *   connector or entity.
 */
export function decodeCursor(
  cursor: string,
  binding: CursorBinding,
  key: CursorKey,
  expectedLength: number,
): SearchAfter {
  const fail = (message: string): never => {
    throw new SearchQueryError('invalid_cursor', [{ path: '/cursor', message }]);
  };
  const [body, mac, extra] = cursor.split('.');
  if (!body || !mac || extra !== undefined) return fail('malformed cursor');
  const expected = sign(body, key);
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return fail('cursor signature mismatch');
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return fail('malformed cursor');
  }
  const payload = Payload.safeParse(json);
  if (!payload.success) return fail('malformed cursor');
  const { c, e, q, a } = payload.data;
  if (c !== binding.connectorId || e !== binding.entity) return fail('cursor belongs to another connector or entity');
  if (q !== binding.queryHash) return fail('cursor belongs to a different query, sort or fields');
  if (a.length !== expectedLength) return fail('malformed cursor');
  return a;
}
