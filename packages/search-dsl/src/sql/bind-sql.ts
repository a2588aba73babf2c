import { nearest } from '@conduit/connectors';
import type { Expr, ExprRef, SelectedColumn, SelectFromStatement } from 'pgsql-ast-parser';
import { isSearchQueryError, pointer } from '../errors.ts';
import { type FieldRef, knownPaths, resolveField, rootScope } from '../fields/field-resolution.ts';
import { parseSearchParams } from '../params/parse-search-params.ts';
import { overBudget, searchCost } from '../validate/search-cost.ts';
import { validateSearch } from '../validate/validate-search.ts';
import { bindGroups } from './bind-groups.ts';
import { type Classified, type ClassifyContext, classify, containsAggregate } from './classify-expr.ts';
import { positionAt, type SqlProblem, SqlQueryError } from './sql-error.ts';
import { literalOf } from './sql-literals.ts';
import type { RowColumn, SqlQuery, SqlTable, SqlTables } from './sql-tree.ts';
import { whereToFilter } from './where-to-filter.ts';

/** What the binder needs besides the statement: the tables, and this page's size and inner search cursor. */
export type BindOptions = {
  readonly tables: SqlTables;
  /** Rows this page may hold (the request's `limit`, cut by what is left of the query's LIMIT). */
  readonly pageLimit: number;
  /** Row mode: the search cursor of the previous page. */
  readonly searchCursor: string | undefined;
};

/** The context every binder stage shares: the text, the table, and where problems go. */
export type BindContext = ClassifyContext & {
  readonly table: SqlTable;
  readonly entity: string;
  readonly problems: SqlProblem[];
  /** The select items, for ordinals and aliases. */
  readonly select: readonly SelectedColumn[];
};

/**
 * Stage 2 of SQL: a parsed SELECT checked against the connector's tables and their columns (the entities'
 * searchable fields), as the typed query tree. WHERE becomes the search language's filter and goes through its own
 * validator (same types, limits and null semantics). Every problem is collected with its line and column; unknown
 * tables and columns get a "did you mean".
 *
 * @throws SqlQueryError `invalid_sql` listing every problem.
 */
export function bindSql(statement: SelectFromStatement, text: string, options: BindOptions): SqlQuery {
  const problems: SqlProblem[] = [];
  const problem = (offset: number, message: string) => problems.push({ ...positionAt(text, offset), message });
  const done = (): never => {
    throw new SqlQueryError('invalid_sql', problems);
  };
  const start = statement._location?.start ?? 0;
  const { entity, table, qualifiers } = fromClause(statement, options.tables, problem) ?? done();
  if (statement.distinct) problem(start, 'SELECT DISTINCT is not supported; GROUP BY the columns instead');
  if (statement.for || statement.skip)
    problem(start, 'FOR UPDATE and SKIP LOCKED are not supported: the copy is read-only');
  if (statement.limit?.offset) {
    problem(statement.limit.offset._location?.start ?? start, 'OFFSET is not supported; page with meta.cursor');
  }
  const select = statement.columns ?? [];
  if (select.length === 0) problem(start, 'SELECT needs at least one column');

  const scope = rootScope(table.searchable);
  const columnNames = knownPaths(table.searchable);
  const ctx: BindContext = {
    text,
    table,
    entity,
    problems,
    select,
    problem,
    column(ref: ExprRef) {
      const at = ref._location?.start ?? 0;
      if (ref.table && !qualifiers.includes(ref.table.name)) {
        problem(at, `unknown table '${ref.table.name}'; this query reads '${entity}'`);
        return undefined;
      }
      const field = resolveField(scope, ref.name);
      if (field) return { path: field.path, field };
      const close = nearest(ref.name, columnNames);
      const hint = close.length > 0 ? ` Did you mean ${close.map((c) => `'${c}'`).join(' or ')}?` : '';
      const list = columnNames.slice(0, 50).join(', ') + (columnNames.length > 50 ? ', ...' : '');
      problem(at, `unknown column '${ref.name}' in '${entity}'.${hint} Columns: ${list}`);
      return undefined;
    },
  };

  const locations = new Map<string, number>();
  const filter = statement.where ? whereToFilter(statement.where, { ...ctx, locations }) : undefined;
  const limit = limitOf(statement, ctx);
  const grouping =
    (statement.groupBy?.length ?? 0) > 0 ||
    select.some((c) => containsAggregate(c.expr)) ||
    containsAggregate(statement.having) ||
    (statement.orderBy ?? []).some((o) => containsAggregate(o.by));

  if (grouping) {
    // The filter is validated alone (as `search` would with `limit: 0`), then the groups are bound.
    const checked = validated({ query: filter ? { filter } : {}, limit: 0 }, locations, ctx);
    const groups = bindGroups(statement, ctx);
    if (problems.length > 0 || !checked || !groups) return done();
    return Object.freeze({
      mode: 'groups',
      entity,
      filter: checked.search.filter,
      cost: checked.cost,
      limit,
      ...groups,
      columns: uniqueNames(groups.columns),
    });
  }

  if (statement.having) problem(statement.having._location?.start ?? start, 'HAVING needs GROUP BY or an aggregate');
  const items = select.map((c) => ({ item: c, what: classify(c.expr, ctx) }));
  const columns: RowColumn[] = [];
  for (const { item, what } of items) {
    if (!what) continue;
    const column = rowColumn(item, what, ctx);
    if (column === 'star') columns.push(...starColumns(table));
    else if (column) columns.push(column);
  }
  const star = items.length === 1 && items[0]!.what?.kind === 'star';
  let semantic: { text: string; fields: string[] } | undefined;
  const sort = (statement.orderBy ?? []).flatMap((o, i) => {
    const at = o.by._location?.start ?? 0;
    const similar = similarityOf(o.by, ctx);
    if (similar !== undefined) {
      // ORDER BY similarity(col, 'text'): the search by meaning of docs/search.md, which ranks best first, alone.
      if ((statement.orderBy ?? []).length > 1)
        problem(at, 'ORDER BY similarity(...) ranks alone: no other key with it');
      if (o.order === 'ASC') problem(at, 'ORDER BY similarity(...) ranks the closest first; ASC is not supported');
      if (similar) {
        semantic = similar;
        locations.set(pointer(['query', 'semantic']), at);
      }
      return [];
    }
    if (o.nulls === 'FIRST') problem(at, 'missing values sort last either way; NULLS FIRST is not supported');
    const path = orderPath(o.by, columns, ctx);
    if (path === undefined) return [];
    locations.set(pointer(['query', 'sort', i, path]), at);
    return [{ [path]: o.order === 'DESC' ? 'desc' : 'asc' }];
  });
  const fields = star || columns.length === 0 ? undefined : [...new Set(columns.map((c) => c.path))];
  for (const [i] of (fields ?? []).entries())
    locations.set(pointer(['fields', i]), select[i]?._location?.start ?? start);
  const checked = validated(
    {
      query: { ...(filter ? { filter } : {}), ...(semantic ? { semantic } : { sort }) },
      ...(fields ? { fields } : {}),
      limit: options.pageLimit,
      ...(options.searchCursor ? { cursor: options.searchCursor } : {}),
    },
    locations,
    ctx,
  );
  if (problems.length > 0 || !checked) return done();
  return Object.freeze({
    mode: 'rows',
    entity,
    search: checked.search,
    cost: checked.cost,
    columns: uniqueNames(columns),
    star,
    limit,
  });
}

function fromClause(
  statement: SelectFromStatement,
  tables: SqlTables,
  problem: (offset: number, message: string) => void,
): { entity: string; table: SqlTable; qualifiers: string[] } | undefined {
  const from = statement.from ?? [];
  const names = Object.keys(tables);
  const start = statement._location?.start ?? 0;
  if (from.length === 0) {
    problem(start, `a query reads one table: FROM ${names.join(' | ') || '(this connector has no searchable entity)'}`);
    return undefined;
  }
  if (from.length > 1) problem(from[1]!._location?.start ?? start, 'a query reads one table; joins are not supported');
  const first = from[0]!;
  const at = first._location?.start ?? start;
  if (first.type !== 'table') {
    problem(at, 'FROM takes a table (an entity of this connector), not a subquery or a function');
    return undefined;
  }
  if (first.join) problem(at, 'joins are not supported');
  const name = first.name.name;
  const table = Object.hasOwn(tables, name) ? tables[name] : undefined;
  if (!table || first.name.schema) {
    const close = nearest(name, names);
    const hint = close.length > 0 ? ` Did you mean ${close.map((c) => `'${c}'`).join(' or ')}?` : '';
    problem(
      at,
      `unknown table '${first.name.schema ? `${first.name.schema}.` : ''}${name}'.${hint} Tables: ${names.join(', ') || '(none)'}`,
    );
    return undefined;
  }
  return { entity: name, table, qualifiers: [name, ...(first.name.alias ? [first.name.alias] : [])] };
}

function limitOf(statement: SelectFromStatement, ctx: BindContext): number | undefined {
  const expr = statement.limit?.limit;
  if (!expr) return undefined;
  if (expr.type !== 'integer' || expr.value < 0) {
    ctx.problem(expr._location?.start ?? 0, 'LIMIT takes a whole number of rows');
    return undefined;
  }
  return expr.value;
}

/**
 * The search params checked by the search language itself, with their cost; its problems come back at their SQL
 * positions. A WHERE over the search cost budget (docs/search-cost.md) is refused as a search would be:
 * `query_too_costly`.
 */
function validated(params: Record<string, unknown>, locations: Map<string, number>, ctx: BindContext) {
  try {
    const parsed = parseSearchParams(params);
    const cost = searchCost(parsed);
    const costly = overBudget(cost);
    if (costly.length > 0) {
      const at = (path: string) => positionAt(ctx.text, offsetOf(path, locations));
      throw new SqlQueryError(
        'query_too_costly',
        costly.map((p) => ({ ...at(p.path), message: p.message })),
      );
    }
    return {
      search: validateSearch(parsed, {
        searchable: ctx.table.searchable,
        ...(ctx.table.embed ? { embed: ctx.table.embed } : {}),
      }),
      cost: cost.total,
    };
  } catch (error) {
    if (!isSearchQueryError(error)) throw error;
    for (const e of error.errors) ctx.problem(offsetOf(e.path, locations), e.message);
    return undefined;
  }
}

/** The offset recorded for the longest prefix of a search problem's pointer. */
function offsetOf(path: string, locations: Map<string, number>): number {
  for (let p = path; ; p = p.slice(0, p.lastIndexOf('/'))) {
    const found = locations.get(p);
    if (found !== undefined) return found;
    if (p === '') return 0;
  }
}

function rowColumn(item: SelectedColumn, what: Classified, ctx: BindContext): RowColumn | 'star' | undefined {
  const at = item.expr._location?.start ?? 0;
  switch (what.kind) {
    case 'star':
      return 'star';
    case 'column':
      return { name: item.alias?.name ?? what.path, type: typeOf(what.field), path: what.path, trunc: undefined };
    case 'trunc':
      return { name: item.alias?.name ?? 'date_trunc', type: 'datetime', path: what.path, trunc: what.unit };
    default:
      ctx.problem(at, 'SELECT takes columns, *, DATE_TRUNC and aggregates');
      return undefined;
  }
}

function starColumns(table: SqlTable): RowColumn[] {
  return Object.entries(table.searchable).map(([name, spec]) => ({
    name,
    type: spec.type,
    path: name,
    trunc: undefined,
  }));
}

/**
 * `similarity(col, 'text')` as an ORDER BY item: its column and text (false when it is malformed, with the problem
 * noted), or undefined for any other expression.
 */
function similarityOf(by: Expr, ctx: BindContext): { text: string; fields: string[] } | false | undefined {
  if (by.type !== 'call' || by.function.name.toLowerCase() !== 'similarity' || by.function.schema) return undefined;
  const at = by._location?.start ?? 0;
  const [first, second, ...rest] = by.args;
  const column = first && classify(first, ctx);
  const text = second && literalOf(second, ctx.text);
  if (column?.kind !== 'column' || text?.kind !== 'string' || rest.length > 0 || text.value.trim() === '') {
    ctx.problem(at, "similarity takes a column and a text: ORDER BY similarity(summary, 'checkout outage')");
    return false;
  }
  return { text: text.value, fields: [column.path] };
}

/** An ORDER BY item of a row query as the field it sorts by: a column, a select alias, an ordinal. */
function orderPath(by: Expr, columns: readonly RowColumn[], ctx: BindContext): string | undefined {
  const at = by._location?.start ?? 0;
  if (by.type === 'ref' && !by.table && by.name !== '*' && !resolveField(rootScope(ctx.table.searchable), by.name)) {
    const aliased = columns.find((c) => c.name === by.name);
    if (aliased) return aliased.path;
  }
  const what = classify(by, ctx);
  if (!what) return undefined;
  if (what.kind === 'column' || what.kind === 'trunc') return what.path;
  if (what.kind === 'ordinal') {
    const column = columns[what.position - 1];
    if (!column) ctx.problem(at, `ORDER BY ${what.position}: there are ${columns.length} columns`);
    return column?.path;
  }
  ctx.problem(at, 'ORDER BY takes columns, select aliases or positions');
  return undefined;
}

/** A field's type as `meta.columns` shows it. */
export function typeOf(field: FieldRef): string {
  return field.storage === 'typed' ? field.spec.type : 'unknown';
}

/** Rows are JSON objects, so two columns of the same name (`COUNT(*), COUNT(x)`) get `_2`, `_3`, ... */
function uniqueNames<C extends { readonly name: string }>(columns: readonly C[]): C[] {
  const seen = new Set<string>();
  return columns.map((c) => {
    let name = c.name;
    for (let n = 2; seen.has(name); n++) name = `${c.name}_${n}`;
    seen.add(name);
    return name === c.name ? c : { ...c, name };
  });
}
