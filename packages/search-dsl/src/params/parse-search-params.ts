import type { z } from 'zod';
import { pointer, type SearchProblem, SearchQueryError } from '../errors.ts';
import { isPlainObject } from '../fields/values.ts';
import { SEARCH_LIMITS } from '../limits.ts';
import { type SearchParams, SearchParamsSchema } from './search-params-schema.ts';

const NESTING_OPERATORS = new Set(['and', 'or', 'not', 'any']);

/**
 * Stage 1: reads raw `params` into `SearchParams` (shape only; fields and types are checked by `validateSearch`).
 * Size and depth are checked first so a hostile query never reaches the recursive schema.
 *
 * @throws SearchQueryError `invalid_filter` listing every problem with its JSON pointer.
 * @example parseSearchParams({ query: { filter: { eq: { status: 'open' } } }, limit: 50 })
 */
export function parseSearchParams(input: unknown): SearchParams {
  if (isPlainObject(input) && input.query !== undefined) {
    const bytes = Buffer.byteLength(JSON.stringify(input.query) ?? '', 'utf8');
    if (bytes > SEARCH_LIMITS.maxQueryBytes) {
      throw new SearchQueryError('invalid_filter', [
        { path: '/query', message: `query is ${bytes} bytes; at most ${SEARCH_LIMITS.maxQueryBytes} are allowed` },
      ]);
    }
    if (isPlainObject(input.query) && input.query.filter !== undefined) {
      const tooDeep = findTooDeep(input.query.filter, ['query', 'filter'], 1);
      if (tooDeep) {
        throw new SearchQueryError('invalid_filter', [
          { path: pointer(tooDeep), message: `conditions nest at most ${SEARCH_LIMITS.maxDepth} levels deep` },
        ]);
      }
    }
  }
  const result = SearchParamsSchema.safeParse(input);
  if (!result.success) throw new SearchQueryError('invalid_filter', zodProblems(result.error));
  return result.data;
}

/** The path of the first condition deeper than the limit. */
function findTooDeep(node: unknown, path: (string | number)[], depth: number): (string | number)[] | undefined {
  if (!isPlainObject(node)) return undefined;
  if (depth > SEARCH_LIMITS.maxDepth) return path;
  for (const [op, arg] of Object.entries(node)) {
    if (!NESTING_OPERATORS.has(op)) continue;
    const children: [string | number, unknown][] =
      op === 'not'
        ? [['', arg]]
        : Array.isArray(arg)
          ? arg.map((c, i) => [i, c])
          : isPlainObject(arg)
            ? Object.entries(arg)
            : [];
    for (const [key, child] of children) {
      const found = findTooDeep(child, key === '' ? [...path, op] : [...path, op, key], depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

export function zodProblems(error: z.ZodError): SearchProblem[] {
  const problems: SearchProblem[] = [];
  for (const issue of error.issues) {
    const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) problems.push({ path: pointer([...path, key]), message: unrecognized(path, key) });
    } else if (issue.code === 'invalid_type' && issue.input === undefined) {
      problems.push({ path: pointer(path), message: 'is required' });
    } else {
      problems.push({ path: pointer(path), message: issue.message });
    }
  }
  return problems;
}

function unrecognized(path: readonly (string | number)[], key: string): string {
  const inFilter = path[0] === 'query' && path.length >= 2 && path[1] === 'filter';
  return inFilter
    ? `unknown operator '${key}'; operators are eq, neq, gt, gte, lt, lte, in, like, fuzzy, keyword, contains, any, not, and, or`
    : `unknown property '${key}'`;
}
