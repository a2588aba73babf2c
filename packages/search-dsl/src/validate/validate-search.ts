import type { FieldMap } from '@conduit/connectors';
import type { AggNode } from '../ast/aggregations.ts';
import { flattenLogic } from '../ast/flatten-logic.ts';
import { MatchAllNode, type Node } from '../ast/nodes.ts';
import { invalidSearch, pointer, type SearchProblem } from '../errors.ts';
import { unknownFieldMessage } from '../fields/did-you-mean.ts';
import { type FieldRef, knownPaths, resolveField, rootScope } from '../fields/field-resolution.ts';
import type { SearchParams, SemanticQuery, SortDirection } from '../params/search-params-schema.ts';
import { embeddedStringFields } from '../semantic/vector-fields.ts';
import { validateAggregations } from './validate-aggregations.ts';
import { validateFilter } from './validate-filter.ts';

export type SortKey = { readonly field: FieldRef; readonly direction: SortDirection };

/** Stage 2 output: everything later stages need, typed and checked. */
export type ValidatedSearch = {
  readonly filter: Node;
  readonly sort: readonly SortKey[];
  /** Projection paths (declared or inside objects); defaults to every searchable field. */
  readonly fields: readonly string[];
  /** `fields` names every searchable field: the stored record (which holds nothing else) is shown whole. */
  readonly wholeRecord: boolean;
  /** `params.aggregate`, in request order (empty when there is none). */
  readonly aggregations: readonly AggNode[];
  readonly limit: number;
  readonly cursor: string | undefined;
  /** `query.semantic`: the records are ranked by meaning (compile/opensearch/compile-semantic.ts). */
  readonly semantic: SemanticRanking | undefined;
  /** The parsed params, for binding cursors to the query. */
  readonly params: SearchParams;
};

/** A validated `query.semantic`: its text, the embedded fields its word side reads, its similarity floor. */
export type SemanticRanking = {
  readonly text: string;
  readonly fields: readonly string[];
  readonly minScore: number | undefined;
};

export type ValidateOptions = {
  readonly searchable: FieldMap;
  /** The entity's embedded fields (the catalog's `embed`): what `query.semantic` can search. */
  readonly embed?: readonly string[];
};

export const SORTABLE: ReadonlySet<string> = new Set(['string', 'datetime', 'integer', 'number', 'decimal', 'boolean']);

/**
 * Stage 2: checks parsed params against the entity's searchable fields and builds the typed AST.
 *
 * @throws SearchQueryError `invalid_filter` listing every problem (unknown fields come with "did you mean").
 */
export function validateSearch(params: SearchParams, { searchable, embed = [] }: ValidateOptions): ValidatedSearch {
  const problems: SearchProblem[] = [];
  const scope = rootScope(searchable);
  const filter = params.query.filter
    ? validateFilter(params.query.filter, scope, ['query', 'filter'], problems)
    : MatchAllNode.create({});

  const sort: SortKey[] = [];
  (params.query.sort ?? []).forEach((entry, i) => {
    for (const [name, direction] of Object.entries(entry)) {
      const path = pointer(['query', 'sort', i, name]);
      const field = resolveField(scope, name);
      if (!field) problems.push({ path, message: unknownFieldMessage('sort field', name, sortablePaths(searchable)) });
      else if (field.storage === 'flat' || !SORTABLE.has(field.spec.type)) {
        problems.push({
          path,
          message: `cannot sort by '${name}'; sortable fields: ${sortablePaths(searchable).join(', ')}`,
        });
      } else sort.push({ field, direction });
    }
  });

  const { fields, wholeRecord } = params.fields
    ? requestedProjection(params.fields, scope, searchable, problems)
    : defaultProjection(searchable, problems);

  const aggregations = validateAggregations(params.aggregate ?? {}, searchable, problems);
  const semantic = params.query.semantic
    ? validateSemantic(params.query.semantic, params, searchable, embed, problems)
    : undefined;

  if (problems.length > 0) throw invalidSearch(problems);
  return Object.freeze({
    filter: flattenLogic(filter),
    sort: Object.freeze(sort),
    fields: Object.freeze(fields),
    wholeRecord,
    aggregations: Object.freeze(aggregations),
    limit: params.limit,
    cursor: params.cursor,
    semantic,
    params,
  });
}

/** `query.semantic` checked: the entity must embed fields, those named must be among them, and nothing sorts. */
function validateSemantic(
  query: SemanticQuery,
  params: SearchParams,
  searchable: FieldMap,
  embed: readonly string[],
  problems: SearchProblem[],
): SemanticRanking | undefined {
  const before = problems.length;
  if (params.query.sort) {
    problems.push({
      path: '/query/sort',
      message: 'sort cannot go with query.semantic: the records are ranked by meaning',
    });
  }
  if (params.aggregate) {
    problems.push({
      path: '/aggregate',
      message: 'aggregate cannot go with query.semantic: ask for it in another search',
    });
  }
  const embedded = embeddedStringFields(searchable, embed);
  if (embed.length === 0) {
    problems.push({ path: '/query/semantic', message: 'this entity is not searched by meaning: it embeds no fields' });
  }
  (query.fields ?? []).forEach((name, i) => {
    if (embed.length > 0 && !embed.includes(name)) {
      problems.push({
        path: pointer(['query', 'semantic', 'fields', i]),
        message: `'${name}' is not searched by meaning; these are: ${embed.join(', ')}`,
      });
    }
  });
  if (problems.length > before) return undefined;
  const named = query.fields ?? embed;
  return { text: query.text, fields: embedded.filter((f) => named.includes(f)), minScore: query.min_score };
}

interface Projection {
  readonly fields: readonly string[];
  readonly wholeRecord: boolean;
}

/** The paths of `fields` in request order, each once; an unknown one is a problem at its index. */
function requestedProjection(
  names: readonly string[],
  scope: ReturnType<typeof rootScope>,
  searchable: FieldMap,
  problems: SearchProblem[],
): Projection {
  const fields: string[] = [];
  names.forEach((name, i) => {
    if (!resolveField(scope, name)) {
      problems.push({
        path: pointer(['fields', i]),
        message: unknownFieldMessage('field', name, knownPaths(searchable)),
      });
    } else if (!fields.includes(name)) fields.push(name);
  });
  return { fields, wholeRecord: Object.keys(searchable).every((name) => fields.includes(name)) };
}

/**
 * Without `fields`, every searchable field: the same answer for every search of the entity (a catalog never
 * changes while the process runs), so it is worked out once per field map instead of field by field per search.
 */
const defaultProjections = new WeakMap<FieldMap, Projection & { readonly problems: readonly SearchProblem[] }>();
function defaultProjection(searchable: FieldMap, problems: SearchProblem[]): Projection {
  let known = defaultProjections.get(searchable);
  if (!known) {
    const found: SearchProblem[] = [];
    const projection = requestedProjection(Object.keys(searchable), rootScope(searchable), searchable, found);
    known = { fields: Object.freeze(projection.fields), wholeRecord: projection.wholeRecord, problems: found };
    defaultProjections.set(searchable, known);
  }
  problems.push(...known.problems);
  return known;
}

function sortablePaths(searchable: FieldMap): string[] {
  const scope = rootScope(searchable);
  return knownPaths(searchable).filter((p) => {
    const ref = resolveField(scope, p);
    return ref?.storage === 'typed' && SORTABLE.has(ref.spec.type);
  });
}
