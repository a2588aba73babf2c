import type { Expr, ExprRef } from 'pgsql-ast-parser';
import { pointer } from '../errors.ts';
import type { FieldRef } from '../fields/field-resolution.ts';
import { literalOf, literalValue, type SqlLiteral } from './sql-literals.ts';
import { COMPARISONS, FLIPPED } from './sql-tree.ts';

type Json = Record<string, unknown>;
type Path = readonly (string | number)[];

/** What the WHERE translation needs from the binder. */
export type WhereContext = {
  readonly text: string;
  /** A column reference as its field path (undefined after recording an unknown column). */
  column(ref: ExprRef): { readonly path: string; readonly field: FieldRef } | undefined;
  problem(offset: number, message: string): void;
  /** JSON pointer of each condition built → offset of its SQL text, to put the validator's problems back. */
  readonly locations: Map<string, number>;
};

/**
 * Stage 2a of SQL: a WHERE clause as the search language's filter (`{"eq": {"status": "paid"}}`), so that it is
 * validated and compiled by the very code `search` uses, with the same types, limits and null semantics. Each
 * condition's pointer is mapped to its offset in the text (`ctx.locations`) so that the validator's problems are
 * reported at their line and column. AND and OR chains become one list (the search language's nesting limit
 * counts levels, and `a AND b AND c` is one level in SQL's eyes too).
 */
export function whereToFilter(expr: Expr, ctx: WhereContext): Json | undefined {
  return condition(expr, ['query', 'filter'], ctx);
}

function condition(expr: Expr, path: Path, ctx: WhereContext): Json | undefined {
  const at = expr._location?.start ?? 0;
  ctx.locations.set(pointer(path), at);
  const fail = (message: string): undefined => {
    ctx.problem(at, message);
    return undefined;
  };
  switch (expr.type) {
    case 'binary': {
      if (expr.op === 'AND' || expr.op === 'OR') {
        const parts = chain(expr, expr.op);
        const op = expr.op === 'AND' ? 'and' : 'or';
        const built = parts.map((part, i) => condition(part, [...path, op, i], ctx));
        return built.every((b) => b !== undefined) ? { [op]: built } : undefined;
      }
      if (expr.op === 'IN' || expr.op === 'NOT IN')
        return inList(expr.left, expr.right, expr.op === 'NOT IN', path, ctx);
      if (['LIKE', 'NOT LIKE', 'ILIKE', 'NOT ILIKE'].includes(expr.op)) {
        const leaf = columnAndLiteral(expr.left, expr.right, ctx);
        if (!leaf) return undefined;
        if (leaf.literal.kind !== 'string') return fail(`${expr.op} takes a string pattern such as 'pa%'`);
        const like = withField(path, 'like', leaf.path, leaf.literal.value, leaf.at, ctx);
        return expr.op.startsWith('NOT') ? negate(path, like, ctx) : like;
      }
      const op = COMPARISONS[expr.op];
      if (!op)
        return fail(
          `the operator ${expr.op} is not supported; use = <> < <= > >=, IN, LIKE, ILIKE, BETWEEN or IS NULL`,
        );
      const leaf = columnAndLiteral(expr.left, expr.right, ctx);
      if (!leaf) return undefined;
      if (leaf.literal.kind === 'null') {
        return fail(`comparing with NULL is never true in SQL; write IS ${op === 'eq' ? '' : 'NOT '}NULL`);
      }
      const name = leaf.flipped ? FLIPPED[op]! : op;
      return withField(path, name, leaf.path, literalValue(leaf.literal, scalarType(leaf.field)), leaf.at, ctx);
    }
    case 'ternary': {
      const column = columnOf(expr.value, ctx);
      const lo = literalOf(expr.lo, ctx.text);
      const hi = literalOf(expr.hi, ctx.text);
      if (!column) return undefined;
      if (!lo || !hi || lo.kind === 'null' || hi.kind === 'null') return fail('BETWEEN takes two values');
      const type = scalarType(column.field);
      const both = {
        and: [
          withField([...path, 'and', 0], 'gte', column.path, literalValue(lo, type), column.at, ctx),
          withField([...path, 'and', 1], 'lte', column.path, literalValue(hi, type), column.at, ctx),
        ],
      };
      return expr.op === 'NOT BETWEEN' ? negate(path, both, ctx) : both;
    }
    case 'unary': {
      if (expr.op === 'NOT') {
        const inner = condition(expr.operand, [...path, 'not'], ctx);
        return inner && { not: inner };
      }
      const column = columnOf(expr.operand, ctx);
      if (!column) return undefined;
      const is: Readonly<Record<string, [string, boolean | null]>> = {
        'IS NULL': ['eq', null],
        'IS NOT NULL': ['neq', null],
        'IS TRUE': ['eq', true],
        'IS FALSE': ['eq', false],
        'IS NOT TRUE': ['neq', true],
        'IS NOT FALSE': ['neq', false],
      };
      const test = is[expr.op];
      if (!test) return fail(`${expr.op} is not a condition`);
      return withField(path, test[0], column.path, test[1], column.at, ctx);
    }
    case 'call': {
      const name = expr.function.name.toLowerCase();
      if ((name !== 'fuzzy' && name !== 'keyword') || expr.function.schema) {
        return fail(
          `the function ${expr.function.name} is not a condition; WHERE takes fuzzy(col, 'text') and keyword(col, 'text')`,
        );
      }
      const [first, second, ...rest] = expr.args;
      const column = first && columnOf(first, ctx);
      const text = second && literalOf(second, ctx.text);
      if (!column) return first ? undefined : fail(`${name} takes a column and a text: ${name}(title, 'words')`);
      if (rest.length > 0 || text?.kind !== 'string')
        return fail(`${name} takes a column and a text: ${name}(title, 'words')`);
      return withField(path, name, column.path, text.value, column.at, ctx);
    }
    case 'ref': {
      // A bare boolean column is a condition (`WHERE active`).
      const column = columnOf(expr, ctx);
      return column && withField(path, 'eq', column.path, true, column.at, ctx);
    }
    default:
      return fail(`this expression is not supported in WHERE (${describeExpr(expr)})`);
  }
}

function chain(expr: Expr, op: 'AND' | 'OR'): Expr[] {
  return expr.type === 'binary' && expr.op === op ? [...chain(expr.left, op), ...chain(expr.right, op)] : [expr];
}

function inList(left: Expr, right: Expr, not: boolean, path: Path, ctx: WhereContext): Json | undefined {
  const column = columnOf(left, ctx);
  if (!column) return undefined;
  const at = right._location?.start ?? 0;
  // The parser reads `IN ('x')` as `IN 'x'`: a one-value list.
  const expressions = right.type === 'list' ? right.expressions : literalOf(right, ctx.text) ? [right] : [];
  if (expressions.length === 0) {
    ctx.problem(at, 'IN takes a list of values: IN (1, 2)');
    return undefined;
  }
  const literals = expressions.map((e) => literalOf(e, ctx.text));
  const bad = literals.findIndex((l) => l === undefined || l.kind === 'null');
  if (bad >= 0) {
    ctx.problem(expressions[bad]!._location?.start ?? at, 'IN lists take values (not NULL, not columns)');
    return undefined;
  }
  const inPath = not ? [...path, 'not'] : path;
  ctx.locations.set(pointer(inPath), column.at);
  expressions.forEach((e, i) => {
    ctx.locations.set(pointer([...inPath, 'in', column.path, i]), e._location?.start ?? at);
  });
  const type = scalarType(column.field);
  const list = { in: { [column.path]: (literals as SqlLiteral[]).map((l) => literalValue(l, type)) } };
  ctx.locations.set(pointer([...inPath, 'in', column.path]), column.at);
  return not ? { not: list } : list;
}

function negate(path: Path, inner: Json | undefined, ctx: WhereContext): Json | undefined {
  if (!inner) return undefined;
  // The inner condition was built at `path`; under `not` its problems point one level deeper.
  for (const [key, offset] of [...ctx.locations]) {
    const base = pointer(path);
    if (key === base || key.startsWith(`${base}/`)) ctx.locations.set(`${base}/not${key.slice(base.length)}`, offset);
  }
  return { not: inner };
}

function withField(path: Path, op: string, field: string, value: unknown, at: number, ctx: WhereContext): Json {
  ctx.locations.set(pointer(path), at);
  ctx.locations.set(pointer([...path, op, field]), at);
  return { [op]: { [field]: value } };
}

type Column = { readonly path: string; readonly field: FieldRef; readonly at: number };

function columnOf(expr: Expr, ctx: WhereContext): Column | undefined {
  if (expr.type !== 'ref' || expr.name === '*') {
    ctx.problem(expr._location?.start ?? 0, `expected a column, found ${describeExpr(expr)}`);
    return undefined;
  }
  const found = ctx.column(expr);
  return found && { ...found, at: expr._location?.start ?? 0 };
}

/** One side a column, the other a literal (in either order). */
function columnAndLiteral(left: Expr, right: Expr, ctx: WhereContext) {
  const flipped = left.type !== 'ref' && right.type === 'ref';
  const [col, lit] = flipped ? [right, left] : [left, right];
  const column = columnOf(col, ctx);
  if (!column) return undefined;
  const literal = literalOf(lit, ctx.text);
  if (!literal) {
    ctx.problem(
      lit._location?.start ?? 0,
      lit.type === 'ref'
        ? 'a column can only be compared with a value, not with another column'
        : `expected a value, found ${describeExpr(lit)}`,
    );
    return undefined;
  }
  return { ...column, literal, flipped };
}

function scalarType(field: FieldRef): string | undefined {
  if (field.storage === 'flat') return undefined;
  return field.spec.type === 'array' ? field.spec.items?.type : field.spec.type;
}

/** A short name for an expression in messages. */
export function describeExpr(expr: Expr): string {
  switch (expr.type) {
    case 'call':
      return `${expr.function.name}(...)`;
    case 'ref':
      return expr.name === '*' ? '*' : `column ${expr.name}`;
    case 'binary':
      return `an expression with ${expr.op}`;
    case 'select':
    case 'union':
    case 'union all':
    case 'with':
      return 'a subquery';
    default:
      return `a ${expr.type} expression`;
  }
}
