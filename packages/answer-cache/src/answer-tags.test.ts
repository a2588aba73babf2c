import { describe, expect, it } from 'vitest';
import { asHit, etagOf, noneMatchHas } from './answer-tags.ts';

const body = (took: number | null, cache: string, total = 3) =>
  Buffer.from(
    JSON.stringify({
      data: [{ id: 'a', took_ms: 9 }],
      meta: { has_more: false, cursor: null, took_ms: took, total: { value: total }, as_of: '7', cache },
    }),
  );

describe('answer tags', () => {
  it('gives one answer the same ETag whatever the engine took and whether it came from memory', () => {
    expect(etagOf(body(12, 'miss'))).toBe(etagOf(body(3, 'hit')));
    expect(etagOf(body(null, 'miss'))).toBe(etagOf(body(40, 'miss')));
  });

  it('gives another answer another ETag', () => {
    expect(etagOf(body(12, 'miss'))).not.toBe(etagOf(body(12, 'miss', 4)));
  });

  it('serves a kept answer with meta.cache "hit"', () => {
    expect(JSON.parse(asHit(body(12, 'miss'))!.toString()).meta.cache).toBe('hit');
    expect(asHit(Buffer.from('{"data":[]}'))).toBeUndefined();
  });

  it('compares If-None-Match weakly, in a list, and ignores *', () => {
    const etag = etagOf(body(1, 'miss'));
    expect(noneMatchHas(etag, etag)).toBe(true);
    expect(noneMatchHas(`"x", ${etag.slice(2)}`, etag)).toBe(true);
    expect(noneMatchHas('*', etag)).toBe(false);
    expect(noneMatchHas(undefined, etag)).toBe(false);
  });
});
