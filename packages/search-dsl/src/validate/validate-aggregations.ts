import type { FieldMap, ScalarType } from '@conduit/connectors';
import {
  type AggKind,
  type AggNode,
  AvgAgg,
  CountAgg,
  CountByAgg,
  DistinctAgg,
  HistogramAgg,
  MaxAgg,
  MinAgg,
  SumAgg,
} from '../ast/aggregations.ts';
import { pointer, type SearchProblem } from '../errors.ts';
import { unknownFieldMessage } from '../fields/did-you-mean.ts';
import { type FieldRef, knownPaths, resolveField, rootScope, scalarTypeOf } from '../fields/field-resolution.ts';
import { SEARCH_LIMITS } from '../limits.ts';
import type { SearchAggregation } from '../params/search-params-schema.ts';

const NUMERIC: readonly ScalarType[] = ['integer', 'number', 'decimal'];

/** The field types each aggregation takes (the 400 lists them when one does not apply). */
const TAKES: Readonly<Record<AggKind, readonly ScalarType[]>> = {
  CountByAgg: ['string', 'integer', 'number', 'decimal', 'boolean', 'datetime'],
  SumAgg: NUMERIC,
  AvgAgg: [...NUMERIC, 'datetime'],
  MinAgg: [...NUMERIC, 'datetime'],
  MaxAgg: [...NUMERIC, 'datetime'],
  HistogramAgg: ['datetime'],
  CountAgg: ['string', 'integer', 'number', 'decimal', 'boolean', 'datetime'],
  DistinctAgg: ['string', 'integer', 'number', 'decimal', 'boolean', 'datetime'],
};

/** Which kind an aggregation of the request is, and the key naming its field. */
function kindOf(agg: SearchAggregation): { kind: AggKind; key: string; path: string } {
  if ('count_by' in agg) return { kind: 'CountByAgg', key: 'count_by', path: agg.count_by };
  if ('sum' in agg) return { kind: 'SumAgg', key: 'sum', path: agg.sum };
  if ('avg' in agg) return { kind: 'AvgAgg', key: 'avg', path: agg.avg };
  if ('min' in agg) return { kind: 'MinAgg', key: 'min', path: agg.min };
  if ('max' in agg) return { kind: 'MaxAgg', key: 'max', path: agg.max };
  return { kind: 'HistogramAgg', key: 'histogram', path: agg.histogram };
}

/**
 * Stage 2b: `params.aggregate` checked against the entity's searchable fields, as aggregation nodes (in request
 * order). Unknown fields get a "did you mean"; a field of a type the aggregation does not take is named with the
 * types it takes. Problems go to `problems` with pointers under `/aggregate/<name>/<kind>`.
 */
export function validateAggregations(
  aggregate: Readonly<Record<string, SearchAggregation>>,
  searchable: FieldMap,
  problems: SearchProblem[],
): AggNode[] {
  const scope = rootScope(searchable);
  const nodes: AggNode[] = [];
  for (const [name, agg] of Object.entries(aggregate)) {
    const { kind, key, path } = kindOf(agg);
    const at = pointer(['aggregate', name, key]);
    const field = resolveField(scope, path);
    if (!field) {
      problems.push({ path: at, message: unknownFieldMessage('field', path, applicablePaths(searchable, kind)) });
      continue;
    }
    const type = aggregatable(field, kind);
    if (!type) {
      problems.push({ path: at, message: notApplicable(key, path, field, kind) });
      continue;
    }
    nodes.push(node(kind, agg, { name, field, type }));
  }
  return nodes;
}

function node(kind: AggKind, agg: SearchAggregation, base: { name: string; field: FieldRef; type: ScalarType }) {
  switch (kind) {
    case 'CountByAgg':
      return CountByAgg.create({ ...base, size: ('size' in agg && agg.size) || SEARCH_LIMITS.defaultCountBySize });
    case 'SumAgg':
      return SumAgg.create(base);
    case 'AvgAgg':
      return AvgAgg.create(base);
    case 'MinAgg':
      return MinAgg.create(base);
    case 'MaxAgg':
      return MaxAgg.create(base);
    case 'HistogramAgg':
      return HistogramAgg.create({ ...base, interval: 'interval' in agg ? agg.interval : 'day' });
    case 'CountAgg':
      return CountAgg.create(base);
    case 'DistinctAgg':
      return DistinctAgg.create(base);
  }
}

/**
 * The value type an aggregation of `kind` reads from `field`, or undefined when it does not apply: declared
 * scalar fields of the types in TAKES; arrays of scalars only for count_by (each record counts once per value).
 */
export function aggregatable(field: FieldRef, kind: AggKind): ScalarType | undefined {
  if (field.storage !== 'typed') return undefined;
  const type = scalarTypeOf(field);
  if (!type || !TAKES[kind].includes(type)) return undefined;
  if (field.spec.type === 'array' && kind !== 'CountByAgg') return undefined;
  return type;
}

function notApplicable(key: string, path: string, field: FieldRef, kind: AggKind): string {
  const what =
    field.storage === 'flat'
      ? 'a value inside an untyped object'
      : field.spec.type === 'array'
        ? `an array${scalarTypeOf(field) ? ` of ${scalarTypeOf(field)}` : ''}`
        : field.spec.type;
  const types = TAKES[kind].join(', ');
  return `${key} does not apply to '${path}' (${what}); it takes fields of type ${types}${
    kind === 'CountByAgg' ? ' (or arrays of them)' : ''
  }`;
}

/** Declared paths an aggregation of `kind` takes, for "did you mean" and the list of valid fields. */
function applicablePaths(searchable: FieldMap, kind: AggKind): string[] {
  const scope = rootScope(searchable);
  return knownPaths(searchable).filter((p) => {
    const ref = resolveField(scope, p);
    return ref !== undefined && aggregatable(ref, kind) !== undefined;
  });
}
