import type { Expr, ExprRef } from 'pgsql-ast-parser';
import type { FieldRef } from '../fields/field-resolution.ts';
import { HISTOGRAM_INTERVALS, type HistogramInterval } from '../params/search-params-schema.ts';
import { literalOf, type SqlLiteral } from './sql-literals.ts';
import { describeExpr } from './where-to-filter.ts';

export const AGGREGATE_FUNCTIONS = ['count', 'sum', 'avg', 'min', 'max'] as const;
export type AggregateFunction = (typeof AGGREGATE_FUNCTIONS)[number];

type Resolved = { readonly path: string; readonly field: FieldRef };

/** What a select item, a group key, an ORDER BY or a HAVING operand is. */
export type Classified =
  | { readonly kind: 'star' }
  | ({ readonly kind: 'column'; readonly name: string } & Resolved)
  | ({ readonly kind: 'trunc'; readonly unit: HistogramInterval } & Resolved)
  | { readonly kind: 'count_all' }
  | ({ readonly kind: 'aggregate'; readonly fn: AggregateFunction; readonly distinct: boolean } & Resolved)
  | { readonly kind: 'ordinal'; readonly position: number }
  | { readonly kind: 'literal'; readonly literal: SqlLiteral };

export type ClassifyContext = {
  readonly text: string;
  column(ref: ExprRef): Resolved | undefined;
  problem(offset: number, message: string): void;
};

const isAggregate = (name: string): name is AggregateFunction =>
  (AGGREGATE_FUNCTIONS as readonly string[]).includes(name);

/** Whether `expr` holds an aggregate call anywhere (which makes the query a grouping one). */
export function containsAggregate(expr: Expr | null | undefined): boolean {
  if (!expr) return false;
  switch (expr.type) {
    case 'call':
      return isAggregate(expr.function.name.toLowerCase()) || expr.args.some(containsAggregate);
    case 'binary':
      return containsAggregate(expr.left) || containsAggregate(expr.right);
    case 'unary':
      return containsAggregate(expr.operand);
    case 'ternary':
      return containsAggregate(expr.value) || containsAggregate(expr.lo) || containsAggregate(expr.hi);
    case 'list':
      return expr.expressions.some(containsAggregate);
    default:
      return false;
  }
}

/**
 * One value expression of the subset: `*`, a column, `DATE_TRUNC('unit', col)`, an aggregate, an ordinal
 * (`ORDER BY 2`), or a literal. Anything else is a problem at its position (undefined).
 */
export function classify(expr: Expr, ctx: ClassifyContext): Classified | undefined {
  const at = expr._location?.start ?? 0;
  const fail = (message: string): undefined => {
    ctx.problem(at, message);
    return undefined;
  };
  if (expr.type === 'ref') {
    if (expr.name === '*') return { kind: 'star' };
    const found = ctx.column(expr);
    return found && { kind: 'column', name: expr.name, ...found };
  }
  if (expr.type === 'integer') return { kind: 'ordinal', position: expr.value };
  if (expr.type !== 'call') {
    const literal = literalOf(expr, ctx.text);
    if (literal) return { kind: 'literal', literal };
    return fail(`${describeExpr(expr)} is not supported here; the subset takes columns, DATE_TRUNC and aggregates`);
  }
  const name = expr.function.name.toLowerCase();
  if (expr.filter || expr.orderBy || expr.over || expr.withinGroup) {
    return fail(`${name.toUpperCase()} takes no FILTER, ORDER BY, WITHIN GROUP or OVER clause`);
  }
  if (name === 'date_trunc') {
    const [unit, column, ...rest] = expr.args;
    const literal = unit && literalOf(unit, ctx.text);
    if (literal?.kind !== 'string' || !column || rest.length > 0) {
      return fail(`DATE_TRUNC takes a unit and a column: DATE_TRUNC('day', created_at)`);
    }
    const lower = literal.value.toLowerCase();
    if (!(HISTOGRAM_INTERVALS as readonly string[]).includes(lower)) {
      ctx.problem(
        unit?._location?.start ?? at,
        `DATE_TRUNC units are ${HISTOGRAM_INTERVALS.map((u) => `'${u}'`).join(', ')}`,
      );
      return undefined;
    }
    if (column.type !== 'ref' || column.name === '*') return fail('DATE_TRUNC takes a date-time column');
    const found = ctx.column(column);
    if (!found) return undefined;
    const type = found.field.storage === 'typed' ? found.field.spec.type : 'unknown';
    if (type !== 'datetime') {
      ctx.problem(column._location?.start ?? at, `DATE_TRUNC takes a date-time column; '${found.path}' is ${type}`);
      return undefined;
    }
    return { kind: 'trunc', unit: lower as HistogramInterval, ...found };
  }
  if (!isAggregate(name)) {
    return fail(
      `the function ${expr.function.name} is not supported; the subset has COUNT, SUM, AVG, MIN, MAX and DATE_TRUNC (fuzzy and keyword in WHERE)`,
    );
  }
  const [arg, ...rest] = expr.args;
  if (!arg || rest.length > 0) return fail(`${name.toUpperCase()} takes one column`);
  const distinct = expr.distinct === 'distinct';
  if (arg.type === 'ref' && arg.name === '*') {
    if (name !== 'count' || distinct) return fail(`${name.toUpperCase()}(*) is not SQL; only COUNT(*) is`);
    return { kind: 'count_all' };
  }
  if (distinct && name !== 'count') return fail(`DISTINCT is supported in COUNT(DISTINCT col) only`);
  if (arg.type !== 'ref') return fail(`${name.toUpperCase()} takes a column, found ${describeExpr(arg)}`);
  const found = ctx.column(arg);
  return found && { kind: 'aggregate', fn: name, distinct, ...found };
}
