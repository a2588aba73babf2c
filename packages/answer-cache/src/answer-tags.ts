import { createHash } from 'node:crypto';

/**
 * Every answer's `meta` ends with `cache`, written last by the search service (search-dsl writes the caller's meta
 * after its own): a kept answer is served with its tail changed, and its ETag is that of the body before the tail.
 */
const MISS_TAIL = Buffer.from('"cache":"miss"}}');
const HIT_TAIL = Buffer.from('"cache":"hit"}}');

/** The meta an answer computed now carries last (docs/api.md, "Answers from memory"). */
export function missMeta(asOf: number): { readonly as_of: string; readonly cache: 'miss' } {
  return { as_of: String(asOf), cache: 'miss' };
}

/** The same answer as served from memory (`meta.cache: "hit"`); undefined for a body that does not end as written. */
export function asHit(body: Buffer): Buffer<ArrayBuffer> | undefined {
  if (!endsWith(body, MISS_TAIL)) return undefined;
  return Buffer.concat([body.subarray(0, body.length - MISS_TAIL.length), HIT_TAIL]);
}

/**
 * A weak ETag (RFC 9110 §8.8.1: the hit and the miss of one answer differ in `meta.cache` only, the same
 * representation otherwise): a hash of the body without its `cache` tail.
 */
export function etagOf(body: Buffer): string {
  const tail = endsWith(body, MISS_TAIL) ? MISS_TAIL.length : endsWith(body, HIT_TAIL) ? HIT_TAIL.length : 0;
  const digest = createHash('sha256')
    .update(body.subarray(0, body.length - tail))
    .digest('base64url');
  return `W/"${digest.slice(0, 32)}"`;
}

/**
 * Whether `If-None-Match` names `etag`, with the weak comparison RFC 9110 §13.1.2 prescribes for it: a list of
 * entity tags, each compared without its `W/`. `*` is not honoured: a search's caller asks for an answer it holds.
 */
export function noneMatchHas(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === opaque);
}

function endsWith(body: Buffer, tail: Buffer): boolean {
  return body.length >= tail.length && body.subarray(body.length - tail.length).equals(tail);
}
