import { isPlainObject, valueAt, zodProblems } from '@conduit/connectors';
import type { z } from 'zod';
import { invalidSearch, pointer, type SearchProblem, SearchQueryError } from '../errors.ts';
import { SEARCH_LIMITS } from '../limits.ts';
import { AGGREGATION_KINDS, OPERATORS, type SearchParams, SearchParamsSchema } from './search-params-schema.ts';

const NESTING_OPERATORS = new Set(['and', 'or', 'not', 'any']);

/**
 * Stage 1: reads raw `params` into `SearchParams` (shape only; fields and types are checked by `validateSearch`).
 * Size and depth are checked first so a hostile query never reaches the recursive schema.
 *
 * @throws SearchQueryError `invalid_filter` (query, aggregate) or `invalid_params` (limit, cursor, fields) listing
 *   every problem with its JSON pointer.
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
  if (!result.success) throw invalidSearch(searchProblems(result.error, input));
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

/**
 * The search params' zod issues as problems: connectors' zodProblems, with the language's words for an unknown key
 * (an operator, or a property) and an aggregation's union reported for the one kind it names.
 */
function searchProblems(error: z.ZodError, input: unknown): SearchProblem[] {
  return zodProblems(error, {
    input,
    unknownKey: unrecognized,
    issue: (issue, path, to) => {
      if (issue.code !== 'invalid_union' || !isAggregationPath(path)) return false;
      const branch = aggregationBranch(valueAt(input, path));
      if (branch === undefined) to.add(path, `an aggregation has exactly one of ${AGGREGATION_KINDS.join(', ')}`);
      else for (const inner of issue.errors[branch] ?? []) to.report(inner, path);
      return true;
    },
  });
}

/** `/aggregate/<name>`: the union of aggregation kinds. */
function isAggregationPath(path: readonly (string | number)[]): boolean {
  return path.length === 2 && path[0] === 'aggregate';
}

/** The union branch of an aggregation (its one kind key), or undefined when it names none or several. */
function aggregationBranch(value: unknown): number | undefined {
  if (!isPlainObject(value)) return undefined;
  const kinds = AGGREGATION_KINDS.filter((k) => Object.hasOwn(value, k));
  return kinds.length === 1 ? AGGREGATION_KINDS.indexOf(kinds[0]!) : undefined;
}

function unrecognized(path: readonly (string | number)[], key: string): string {
  const inFilter = path[0] === 'query' && path.length >= 2 && path[1] === 'filter';
  return inFilter ? `unknown operator '${key}'; operators are ${OPERATORS.join(', ')}` : `unknown property '${key}'`;
}
