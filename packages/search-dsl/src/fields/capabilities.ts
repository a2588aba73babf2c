import type { FieldMap, FieldSpec } from '@conduit/connectors';
import type { AggKind } from '../ast/aggregations.ts';
import { aggregatable } from '../validate/validate-aggregations.ts';
import { APPLIES } from '../validate/validate-filter.ts';
import { SORTABLE } from '../validate/validate-search.ts';
import { type FieldScope, itemScope, knownPaths, resolveField, rootScope, scalarItems } from './field-resolution.ts';

/** A filter operator that takes fields (not `and`, `or`, `not`). */
export type LeafOperator = keyof typeof APPLIES;

/** The AST kinds `params.aggregate` names (the others are SQL's: `COUNT(col)`, `COUNT(DISTINCT col)`). */
type SearchAggKind = Exclude<AggKind, 'CountAgg' | 'DistinctAgg'>;

/** The names aggregations take in `params.aggregate`, by AST kind. */
export const AGGREGATION_KEYS: Readonly<Record<SearchAggKind, string>> = {
  CountByAgg: 'count_by',
  SumAgg: 'sum',
  AvgAgg: 'avg',
  MinAgg: 'min',
  MaxAgg: 'max',
  HistogramAgg: 'histogram',
};

export interface FieldCapability {
  readonly path: string;
  readonly spec: FieldSpec;
  /** Filter operators the validator accepts on this path. */
  readonly operators: readonly LeafOperator[];
  readonly sortable: boolean;
  /** `params.aggregate` kinds that take this path (`count_by`, `sum`, ...). */
  readonly aggregations: readonly string[];
  /** For an array of typed objects: its items' capabilities (the scope of `any`). */
  readonly items?: ScopeCapabilities;
}

export interface ScopeCapabilities {
  readonly fields: readonly FieldCapability[];
  /** Objects whose undeclared internals are filterable by dotted path (`metadata.plan`), values compared as text. */
  readonly untypedRoots: readonly string[];
  /** The operators such untyped paths take. */
  readonly untypedOperators: readonly LeafOperator[];
}

const LEAF_OPERATORS = Object.keys(APPLIES) as LeafOperator[];

/**
 * What the validator accepts on each path of an entity's searchable fields, read from its own tables (APPLIES,
 * SORTABLE, the aggregations' TAKES), for the typed client's generator and the MCP tool schemas.
 */
export function searchCapabilities(fields: FieldMap): ScopeCapabilities {
  return scopeCapabilities(rootScope(fields), true);
}

function scopeCapabilities(scope: FieldScope, topLevel: boolean): ScopeCapabilities {
  const out: FieldCapability[] = [];
  for (const path of knownPaths(scope.fields)) {
    const ref = resolveField(scope, path);
    if (ref?.storage !== 'typed') continue;
    const spec = ref.spec;
    const inner = itemScope(ref);
    const operators = LEAF_OPERATORS.filter((op) => {
      if (!APPLIES[op].includes(spec.type)) return false;
      if (op === 'contains') return scalarItems(spec) !== undefined;
      if (op === 'any') return inner !== undefined;
      return true;
    });
    const aggregations = topLevel
      ? (Object.keys(AGGREGATION_KEYS) as SearchAggKind[])
          .filter((kind) => aggregatable(ref, kind) !== undefined)
          .map((kind) => AGGREGATION_KEYS[kind])
      : [];
    out.push({
      path,
      spec,
      operators,
      sortable: topLevel && SORTABLE.has(spec.type),
      aggregations,
      ...(inner ? { items: scopeCapabilities(inner, false) } : {}),
    });
  }
  return {
    fields: out,
    untypedRoots: untypedRoots(scope.fields, scope.flatPrefix !== undefined),
    untypedOperators: LEAF_OPERATORS.filter((op) => APPLIES[op].includes('flat')),
  };
}

/**
 * Where resolveField sends undeclared paths: into an object without declared fields, and, at the top level, into
 * any object (its whole copy is kept); nested objects of a top-level object are covered by that object's root.
 */
function untypedRoots(fields: FieldMap, topLevel: boolean): string[] {
  const roots: string[] = [];
  const walk = (map: FieldMap, prefix: string, insideTopLevelObject: boolean) => {
    for (const [name, spec] of Object.entries(map)) {
      if (spec.type !== 'object') continue;
      const path = prefix + name;
      if (!spec.fields) {
        if (!insideTopLevelObject) roots.push(path);
        continue;
      }
      const atTop = topLevel && prefix === '';
      if (atTop) roots.push(path);
      walk(spec.fields, `${path}.`, insideTopLevelObject || atTop);
    }
  };
  walk(fields, '', false);
  return roots;
}
