import { toScaledDecimal } from '../fields/decimal.ts';
import { compareCodePoints, parseInstantMillis } from '../fields/values.ts';
import type { Condition, Operand, OrderKey } from './sql-tree.ts';

/** One group as read from the engine: its key values and its aggregates, in the forms rows show them. */
export type GroupRow = { readonly keys: readonly unknown[]; readonly measures: readonly unknown[] };

/** Orders two non-null values of a column type: integers and decimals exactly, instants as instants. */
export function compareValues(a: unknown, b: unknown, type: string): number {
  switch (type) {
    case 'integer': {
      const x = BigInt(String(a));
      const y = BigInt(String(b));
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 'decimal': {
      const x = toScaledDecimal(a) ?? 0n;
      const y = toScaledDecimal(b) ?? 0n;
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 'number':
      return Number(a) - Number(b);
    case 'datetime':
      return (parseInstantMillis(String(a)) ?? 0) - (parseInstantMillis(String(b)) ?? 0);
    case 'boolean':
      return Number(a === true) - Number(b === true);
    default:
      return compareCodePoints(String(a), String(b));
  }
}

function operandValue(op: Operand, row: GroupRow): unknown {
  if (op.kind === 'key') return row.keys[op.index] ?? null;
  if (op.kind === 'measure') return row.measures[op.index] ?? null;
  return op.value;
}

/**
 * HAVING over one group, with the search language's null semantics: a comparison with null is false, `= NULL`
 * (IS NULL) is true for null only, `<>` is the negation of `=`, NOT is a plain negation.
 */
export function holds(condition: Condition, row: GroupRow): boolean {
  switch (condition.kind) {
    case 'and':
      return condition.conditions.every((c) => holds(c, row));
    case 'or':
      return condition.conditions.some((c) => holds(c, row));
    case 'not':
      return !holds(condition.condition, row);
    case 'compare': {
      const x = operandValue(condition.left, row);
      const y = operandValue(condition.right, row);
      const equal = () =>
        condition.right.kind === 'literal' && y === null
          ? x === null
          : x !== null && y !== null && compareValues(x, y, condition.type) === 0;
      if (condition.op === 'eq') return equal();
      if (condition.op === 'neq') return !equal();
      if (x === null || y === null) return false;
      const c = compareValues(x, y, condition.type);
      return condition.op === 'lt' ? c < 0 : condition.op === 'lte' ? c <= 0 : condition.op === 'gt' ? c > 0 : c >= 0;
    }
  }
}

/** Sorts groups by ORDER BY (missing values last either way); a stable sort keeps the key order among ties. */
export function sortGroups(rows: GroupRow[], order: readonly OrderKey[], typeOf: (op: Operand) => string): GroupRow[] {
  return rows.sort((a, b) => {
    for (const { operand, direction } of order) {
      const x = operandValue(operand, a);
      const y = operandValue(operand, b);
      if (x === null || y === null) {
        if (x === y) continue;
        return x === null ? 1 : -1;
      }
      const c = compareValues(x, y, typeOf(operand));
      if (c !== 0) return direction === 'asc' ? c : -c;
    }
    return 0;
  });
}
