import type { Expr } from 'pgsql-ast-parser';

/** A literal of the SQL text as the search language takes it; `raw` keeps a number's digits exactly. */
export type SqlLiteral =
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'number'; readonly value: number; readonly raw: string }
  | { readonly kind: 'boolean'; readonly value: boolean }
  | { readonly kind: 'null' };

/**
 * `expr` as a literal, or undefined when it is not one. Numbers keep their text (the parser reads them as
 * doubles, which would round an int64 or a 7th significant decimal digit); `-5` is a literal too, and so is
 * `TIMESTAMP '2024-02-10'` (a typed string: the field's type decides how it is read).
 */
export function literalOf(expr: Expr, text: string): SqlLiteral | undefined {
  switch (expr.type) {
    case 'string':
      return { kind: 'string', value: expr.value };
    case 'integer':
    case 'numeric': {
      const loc = expr._location;
      const raw = loc ? text.slice(loc.start, loc.end) : String(expr.value);
      return { kind: 'number', value: expr.value, raw };
    }
    case 'boolean':
      return { kind: 'boolean', value: expr.value };
    case 'null':
      return { kind: 'null' };
    case 'unary': {
      if (expr.op !== '-' && expr.op !== '+') return undefined;
      const inner = literalOf(expr.operand, text);
      if (inner?.kind !== 'number') return undefined;
      return expr.op === '+'
        ? inner
        : {
            kind: 'number',
            value: -inner.value,
            raw: inner.raw.startsWith('-') ? inner.raw.slice(1) : `-${inner.raw}`,
          };
    }
    case 'cast':
      return expr.operand.type === 'string' ? { kind: 'string', value: expr.operand.value } : undefined;
    case 'constant':
      return typeof expr.value === 'string' ? { kind: 'string', value: expr.value } : undefined;
    default:
      return undefined;
  }
}

/**
 * A literal as the JSON value a search filter holds for a field of `type`: integers and decimals as their exact
 * text, numbers as numbers.
 */
export function literalValue(literal: SqlLiteral, type: string | undefined): string | number | boolean | null {
  switch (literal.kind) {
    case 'string':
    case 'boolean':
      return literal.value;
    case 'null':
      return null;
    case 'number':
      return type === 'integer' || type === 'decimal' ? literal.raw : literal.value;
  }
}
