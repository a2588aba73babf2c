import { toPointer } from '@conduit/connectors';
/**
 * `invalid_filter`: the query or the aggregations (fields, types, operators); `invalid_params`: the other params
 * (`limit`, `cursor`'s shape, `fields`, unknown params); `invalid_cursor`: a forged or foreign cursor;
 * `query_too_costly`: a valid search over the cost budget (validate/search-cost.ts), naming the costly parts.
 */
export type SearchErrorCode = 'invalid_filter' | 'invalid_params' | 'invalid_cursor' | 'query_too_costly';

/**
 * One problem of a search request; `path` is a JSON pointer into the search params, e.g.
 * `/query/filter/and/0/eq/foo` (the API answers it under `/params`, where the request body holds them).
 */
export type SearchProblem = { readonly path: string; readonly message: string };

/**
 * Every expected failure of the search stages. The API maps it to a 400 problem+json with `code` and `errors`.
 *
 * @example
 * try { planSearch(input, options) } catch (e) { if (isSearchQueryError(e)) reply(400, e.code, e.errors) }
 */
export class SearchQueryError extends Error {
  override readonly name = 'SearchQueryError';
  readonly code: SearchErrorCode;
  readonly errors: readonly SearchProblem[];

  constructor(code: SearchErrorCode, errors: readonly SearchProblem[]) {
    super(
      `${code === 'invalid_cursor' ? 'Invalid cursor' : code === 'query_too_costly' ? 'Search too costly' : 'Invalid search query'}: ${errors
        .map((e) => `${e.path || '/'}: ${e.message}`)
        .join('; ')}`,
    );
    this.code = code;
    this.errors = Object.freeze([...errors]);
  }
}

/** The error for problems of the request's shape or fields: `invalid_filter` if any is in the query or aggregations. */
export function invalidSearch(problems: readonly SearchProblem[]): SearchQueryError {
  const inQuery = problems.some((p) => /^\/(query|aggregate)(\/|$)/.test(p.path));
  return new SearchQueryError(inQuery ? 'invalid_filter' : 'invalid_params', problems);
}

export function isSearchQueryError(value: unknown): value is SearchQueryError {
  return value instanceof SearchQueryError || (value instanceof Error && value.name === 'SearchQueryError');
}

/** A JSON pointer (RFC 6901) from path segments. */
export function pointer(segments: readonly (string | number)[]): string {
  return toPointer('', segments);
}
