import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as api from './index.ts';

describe('public API', () => {
  it('exports the planner, the page reader, the mapping, the schema and the limits', () => {
    for (const name of [
      'planSearch',
      'readSearchPage',
      'buildIndexMapping',
      'toIndexDocument',
      'indexDocumentId',
      'SearchParamsSchema',
      'SearchQueryError',
      'isSearchQueryError',
    ]) {
      expect(api).toHaveProperty(name);
    }
    expect(api.SEARCH_LIMITS).toMatchObject({ maxLimit: 10_000, defaultLimit: 1000, maxInValues: 1024, maxDepth: 16 });
    expect(Object.isFrozen(api.SEARCH_LIMITS)).toBe(true);
  });

  it('turns the params schema into JSON Schema for OpenAPI (recursive filter as a $ref)', () => {
    const schema = z.toJSONSchema(api.SearchParamsSchema, { io: 'input' });
    expect(JSON.stringify(schema)).toContain('SearchFilter');
    expect(schema).toMatchObject({ type: 'object', required: ['query'] });
  });

  it('keeps the error name across process boundaries', () => {
    const error = new api.SearchQueryError('invalid_filter', [{ path: '/query', message: 'x' }]);
    expect(error.name).toBe('SearchQueryError');
    expect(error.message).toBe('Invalid search query: /query: x');
    expect(api.isSearchQueryError(Object.assign(new Error('x'), { name: 'SearchQueryError' }))).toBe(true);
  });
});
