import type { FieldSpec } from '@conduit/connectors';
import type { Scalar } from '../ast/nodes.ts';
import { toDecimal } from '../fields/decimal.ts';
import type { FieldRef } from '../fields/field-resolution.ts';
import { toInstant, toInteger } from '../fields/values.ts';

export type ValueType = FieldSpec['type'] | 'flat';

export function valueType(ref: FieldRef): ValueType {
  return ref.storage === 'flat' ? 'flat' : ref.spec.type;
}

export function describe(type: ValueType): string {
  return type === 'flat' ? 'value inside an untyped object' : type;
}

/** A query value converted to the form the index holds, or an error message. */
export function checkValue(
  type: ValueType,
  value: Scalar,
): { ok: true; value: Scalar } | { ok: false; message: string } {
  switch (type) {
    case 'string':
      return typeof value === 'string' ? { ok: true, value } : { ok: false, message: 'expected a string' };
    case 'datetime': {
      const instant = toInstant(value);
      return instant !== undefined
        ? { ok: true, value: instant }
        : {
            ok: false,
            message: 'expected a date-time such as 2024-02-10T00:01:56Z, 2024-02-10T01:01:56+01:00 or 2024-02-10',
          };
    }
    case 'integer': {
      const int = typeof value === 'boolean' ? undefined : toInteger(value);
      return int !== undefined ? { ok: true, value: int } : { ok: false, message: 'expected a 64-bit integer' };
    }
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
        ? { ok: true, value }
        : { ok: false, message: 'expected a number' };
    case 'decimal': {
      const decimal = typeof value === 'boolean' ? undefined : toDecimal(value);
      return decimal !== undefined
        ? { ok: true, value: decimal }
        : { ok: false, message: 'expected a decimal amount such as "8387.12" (at most 6 digits after the point)' };
    }
    case 'boolean':
      return typeof value === 'boolean' ? { ok: true, value } : { ok: false, message: 'expected a boolean' };
    case 'flat':
      return { ok: true, value: String(value) };
    default:
      return { ok: false, message: `a ${type} field cannot be compared with a value` };
  }
}
