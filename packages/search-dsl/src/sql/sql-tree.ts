import type { FieldMap } from '@conduit/connectors';
import type { AggNode } from '../ast/aggregations.ts';
import type { Node, Scalar } from '../ast/nodes.ts';
import type { FieldRef } from '../fields/field-resolution.ts';
import type { HistogramInterval } from '../params/search-params-schema.ts';
import type { ValidatedSearch } from '../validate/validate-search.ts';

/** A table of the SQL surface: one searchable entity of the connector. */
export type SqlTable = {
  readonly searchable: FieldMap;
  readonly recordKey: string;
  /** The entity's embedded fields: what `ORDER BY similarity(col, 'text')` can rank by (docs/sql.md). */
  readonly embed?: readonly string[];
};
/** The connector's tables by entity name. */
export type SqlTables = Readonly<Record<string, SqlTable>>;

/**
 * A column's type in `meta.columns`: the catalog type of a field (`string`, `integer`, `number`, `decimal`,
 * `boolean`, `datetime`, `object`, `array`), or `unknown` for a path inside an untyped object.
 */
export type SqlColumnType = string;

/** One output column as `meta.columns` shows it. */
export type SqlColumn = {
  readonly name: string;
  readonly type: SqlColumnType;
  /** COUNT(DISTINCT): the engine's estimate (HyperLogLog++), close to exact below this many distinct values. */
  readonly approximate?: { readonly precision_threshold: number };
};

/** A group key: a column's value, or `DATE_TRUNC(unit, col)`. */
export type GroupKey = {
  readonly field: FieldRef;
  readonly type: SqlColumnType;
  readonly trunc: HistogramInterval | undefined;
};

/** An aggregate of a group: COUNT(*) (the group's records), or an aggregation node of the search language. */
export type Measure = { readonly count: 'all' } | { readonly agg: AggNode };

/** A value HAVING and ORDER BY refer to: a group key, a measure, or a literal (already in the operand's form). */
export type Operand =
  | { readonly kind: 'key'; readonly index: number }
  | { readonly kind: 'measure'; readonly index: number }
  | { readonly kind: 'literal'; readonly value: Scalar | null };

export type Comparison = 'eq' | 'neq' | 'lt' | 'lte' | 'gt' | 'gte';

/** SQL's comparison operators as the search language's comparisons (WHERE and HAVING alike). */
export const COMPARISONS: Readonly<Record<string, Comparison>> = {
  '=': 'eq',
  '!=': 'neq',
  '<': 'lt',
  '<=': 'lte',
  '>': 'gt',
  '>=': 'gte',
};

/** `5 < col` is `col > 5`. */
export const FLIPPED: Readonly<Record<Comparison, Comparison>> = {
  eq: 'eq',
  neq: 'neq',
  lt: 'gt',
  lte: 'gte',
  gt: 'lt',
  gte: 'lte',
};

/** HAVING, with the search language's null semantics (a comparison with null is false, `<>` true). */
export type Condition =
  | {
      readonly kind: 'compare';
      readonly op: Comparison;
      readonly left: Operand;
      readonly right: Operand;
      readonly type: SqlColumnType;
    }
  | { readonly kind: 'and' | 'or'; readonly conditions: readonly Condition[] }
  | { readonly kind: 'not'; readonly condition: Condition };

export type OrderKey = { readonly operand: Operand; readonly direction: 'asc' | 'desc' };

/** A row-mode output column: a field's value as the upstream sent it, or its DATE_TRUNC. */
export type RowColumn = SqlColumn & { readonly path: string; readonly trunc: HistogramInterval | undefined };

/** `SELECT columns FROM t WHERE ... ORDER BY columns`: exactly a search, whose records become rows. */
export type RowsQuery = {
  readonly mode: 'rows';
  readonly entity: string;
  readonly search: ValidatedSearch;
  /** The search's cost in the search language's units (docs/search-cost.md). */
  readonly cost: number;
  readonly columns: readonly RowColumn[];
  /** `SELECT *` alone: each row is the record as search returns it. */
  readonly star: boolean;
  readonly limit: number | undefined;
};

/** A query with GROUP BY or aggregates: groups of the filtered records, each a row. */
export type GroupsQuery = {
  readonly mode: 'groups';
  readonly entity: string;
  readonly filter: Node;
  /** The WHERE's cost in the search language's units (docs/search-cost.md), paid by every batch of groups read. */
  readonly cost: number;
  /** Empty: one group of every matching record. */
  readonly keys: readonly GroupKey[];
  readonly measures: readonly Measure[];
  readonly having: Condition | undefined;
  readonly order: readonly OrderKey[];
  readonly columns: readonly (SqlColumn & { readonly operand: Operand })[];
  readonly limit: number | undefined;
};

export type SqlQuery = RowsQuery | GroupsQuery;
