import { createHash } from 'node:crypto';

/**
 * Every answer's `meta` ends with `cache`, written last by the search service (search-dsl writes the caller's meta
 * after its own): a kept answer is served with its tail changed, and its ETag is that of the body before the tail.
 */
const MISS_TAIL = Buffer.from('"cache":"miss"}}');
const HIT_TAIL = Buffer.from('"cache":"hit"}}');
const META_START = Buffer.from('],"meta":{');
const TOOK = Buffer.from('"took_ms":');
const COMMA = 0x2c;
const CLOSE_BRACE = 0x7d;

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
 * A weak ETag (RFC 9110 §8.8.1): two bodies of one answer may differ in `meta.took_ms` (the engine's time when it
 * was computed) and `meta.cache`, the same representation otherwise. So it is a hash of the body without either:
 * `meta` is the body's last member and holds no text of the caller's unescaped, so its first `"took_ms":` is its own.
 */
export function etagOf(body: Buffer): string {
  const tail = endsWith(body, MISS_TAIL) ? MISS_TAIL.length : endsWith(body, HIT_TAIL) ? HIT_TAIL.length : 0;
  const hash = createHash('sha256');
  const meta = body.lastIndexOf(META_START);
  const took = meta < 0 ? -1 : body.indexOf(TOOK, meta);
  if (took < 0) hash.update(body.subarray(0, body.length - tail));
  else {
    let end = took + TOOK.length;
    while (end < body.length && body[end] !== COMMA && body[end] !== CLOSE_BRACE) end++;
    hash.update(body.subarray(0, took)).update(body.subarray(end, body.length - tail));
  }
  return `W/"${hash.digest('base64url').slice(0, 32)}"`;
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
