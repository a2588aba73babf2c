import type { Scalar } from '../ast/nodes.ts';
import { formatScaledDecimal, toScaledDecimal } from '../fields/decimal.ts';
import { type FieldRef, scalarTypeOf } from '../fields/field-resolution.ts';
import { getPath } from '../fields/paths.ts';
import { compareCodePoints, isPlainObject } from '../fields/values.ts';
import { type ValueType, valueType } from '../validate/check-value.ts';

/** Values of a field in an indexed document (`prefix` strips the array path inside `any`). Empty = missing. */
export function readValues(doc: unknown, field: FieldRef, prefix: string): Scalar[] {
  if (field.storage === 'flat') {
    const out: Scalar[] = [];
    collectLeaves(getPath(doc, field.root.slice(prefix.length)), '', field.subpath, out);
    return out;
  }
  const value = getPath(doc, field.physical.slice(prefix.length));
  const list = (Array.isArray(value) ? value : [value]).map((v) =>
    scalarTypeOf(field) === 'decimal' && isPlainObject(v) ? formatScaledDecimal(BigInt(String(v.scaled))) : v,
  );
  return list.filter((v): v is Scalar => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean');
}

/** flat_object semantics: every leaf under the dotted path, through arrays, as a string. */
function collectLeaves(value: unknown, path: string, want: string, out: Scalar[]): void {
  if (Array.isArray(value)) {
    for (const item of value) collectLeaves(item, path, want, out);
  } else if (isPlainObject(value)) {
    for (const [key, child] of Object.entries(value)) collectLeaves(child, path ? `${path}.${key}` : key, want, out);
  } else if (value !== null && value !== undefined && path === want) {
    out.push(String(value));
  }
}

/** Orders two values of the same field type as the index does. */
export function compareValues(type: ValueType, a: Scalar, b: Scalar): number {
  switch (type) {
    case 'integer': {
      const x = BigInt(a as string | number);
      const y = BigInt(b as string | number);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 'number':
      return (a as number) - (b as number);
    case 'decimal': {
      const x = toScaledDecimal(a)!;
      const y = toScaledDecimal(b)!;
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 'datetime':
      return Date.parse(a as string) - Date.parse(b as string);
    case 'boolean':
      return Number(a) - Number(b);
    default:
      return compareCodePoints(String(a), String(b));
  }
}

export function fieldType(field: FieldRef): ValueType {
  const type = valueType(field);
  if (field.storage === 'typed' && field.spec.type === 'array' && field.spec.items) return field.spec.items.type;
  return type;
}
