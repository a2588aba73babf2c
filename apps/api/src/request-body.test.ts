import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError } from './problem.ts';
import { jsonTooDeep, MAX_JSON_DEPTH, parseJsonText } from './request-body.ts';

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('JSON bodies nested too deep', () => {
  it('finds the first level past the limit in [ x 100,000 and {"a": x 50,000 without recursing', () => {
    expect(jsonTooDeep('['.repeat(100_000))).toEqual({ depth: MAX_JSON_DEPTH + 1, offset: MAX_JSON_DEPTH });
    expect(jsonTooDeep('{"a":'.repeat(50_000))).toEqual({ depth: MAX_JSON_DEPTH + 1, offset: 5 * MAX_JSON_DEPTH });
  });

  it('accepts exactly the limit, and does not count brackets inside strings (escaped quotes included)', () => {
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH))).toBeNull();
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH + 1))).not.toBeNull();
    expect(jsonTooDeep(JSON.stringify({ q: '['.repeat(1000), r: 'a\\"[[[[', s: '\\\\' }))).toBeNull();
    expect(jsonTooDeep(`["\\\\"${'['.repeat(100)}`)).toEqual({ depth: MAX_JSON_DEPTH + 1, offset: 5 + 63 });
  });

  it('is refused as 400 invalid_request naming the depth, before the schema sees it', () => {
    const schema = z.object({ params: z.unknown() });
    let error: unknown;
    try {
      parseJsonText(`{"params":${'['.repeat(100_000)}${']'.repeat(100_000)}}`, schema);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_request' });
    expect((error as ApiError).errors[0]?.message).toMatch(/65 levels deep.*at most 64/);
    expect(parseJsonText(`{"params":${nested(10)}}`, schema)).toEqual({ params: JSON.parse(nested(10)) });
  });

  it('scans a 7 MB body (a base64 upload) in a few milliseconds', () => {
    const text = JSON.stringify({ params: { content: 'QUJD'.repeat(1_750_000) } });
    const started = performance.now();
    expect(jsonTooDeep(text)).toBeNull();
    expect(performance.now() - started).toBeLessThan(50);
  });
});
