export type SearchErrorCode = 'invalid_filter' | 'invalid_cursor';

/** One problem of a search request; `path` is a JSON pointer into the params, e.g. `/query/filter/and/0/eq/foo`. */
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
      `${code === 'invalid_cursor' ? 'Invalid cursor' : 'Invalid search query'}: ${errors
        .map((e) => `${e.path || '/'}: ${e.message}`)
        .join('; ')}`,
    );
    this.code = code;
    this.errors = Object.freeze([...errors]);
  }
}

export function isSearchQueryError(value: unknown): value is SearchQueryError {
  return value instanceof SearchQueryError || (value instanceof Error && value.name === 'SearchQueryError');
}

/** A JSON pointer (RFC 6901) from path segments. */
export function pointer(segments: readonly (string | number)[]): string {
  return segments.map((s) => `/${String(s).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}
