import type { ScalarType } from '@conduit/connectors';
import type { FieldRef } from '../fields/field-resolution.ts';

/**
 * The reference evaluator's own reading of upstream records (tests only). It shares nothing with the compiler,
 * the index document builder or their value helpers but the AST types: every coercion here is written again from
 * docs/search.md and the README's semantics, so that a bug in the production code shows up as a difference in the
 * differential test instead of being repeated on both sides.
 *
 * Values are typed: strings, numbers (doubles), booleans, `bigint` for integers, `{ micros }` for decimals (the
 * amount in millionths) and `{ millis }` for instants.
 */
export type Instant = { readonly millis: number };
/** A decimal amount in millionths, and how many digits its text had after the point (a sum keeps the largest). */
export type Amount = { readonly micros: bigint; readonly scale: number };
export type OracleValue = string | number | boolean | bigint | Instant | Amount;

/** The longest string a `keyword` field indexes for exact match, range, sort and count_by (`ignore_above`). */
const MAX_EXACT_LENGTH = 8191;
/** Elements of an array of objects that `any` sees. */
const MAX_ELEMENTS = 1000;
const INT64_MIN = -9223372036854775808n;
const INT64_MAX = 9223372036854775807n;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `obj` at a dotted path, trying the longest key first (catalog keys may contain dots). */
export function lookup(obj: unknown, path: string): unknown {
  const parts = path.split('.');
  const go = (at: unknown, from: number): unknown => {
    if (from === parts.length) return at;
    if (!isObject(at)) return undefined;
    for (let to = parts.length; to > from; to--) {
      const key = parts.slice(from, to).join('.');
      if (key in at && Object.hasOwn(at, key)) {
        const found = go(at[key], to);
        if (found !== undefined) return found;
      }
    }
    return undefined;
  };
  return go(obj, 0);
}

// ------------------------------------------------------------------------------------------------------------
// Coercions, per catalog type
// ------------------------------------------------------------------------------------------------------------

const DATE_TIME =
  /^(?<y>\d{4})-(?<mo>\d{2})-(?<d>\d{2})(?:[Tt ](?<h>\d{2})(?::(?<mi>\d{2})(?::(?<s>\d{2})(?:[.,](?<f>\d{1,9}))?)?)?)?\s?(?:(?<z>[Zz])|(?<sign>[+-])(?<oh>\d{2})(?::?(?<om>\d{2}))?)?$/;

/** An ISO 8601 date or date-time (no offset = UTC), to the millisecond; years 0000-9999 once in UTC. */
export function instantOf(value: unknown): Instant | undefined {
  if (typeof value !== 'string') return undefined;
  const g = DATE_TIME.exec(value)?.groups;
  if (!g) return undefined;
  const n = (s: string | undefined) => (s === undefined ? 0 : Number.parseInt(s, 10));
  const [y, mo, d, h, mi, s] = [n(g.y), n(g.mo), n(g.d), n(g.h), n(g.mi), n(g.s)];
  const ms = g.f ? Number.parseInt(g.f.slice(0, 3).padEnd(3, '0'), 10) : 0;
  if (mo < 1 || mo > 12 || h > 23 || mi > 59 || s > 59) return undefined;
  const monthDays = [
    31,
    y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28,
    31,
    30,
    31,
    30,
    31,
    31,
    30,
    31,
    30,
    31,
  ];
  if (d < 1 || d > monthDays[mo - 1]!) return undefined;
  const oh = n(g.oh);
  const om = n(g.om);
  if (oh > 18 || om > 59) return undefined;
  const offset = (g.sign === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear does not.
  const date = new Date(Date.UTC(2000, 0, 1));
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, ms);
  const millis = date.getTime() - offset;
  const year = new Date(millis).getUTCFullYear();
  return year >= 0 && year <= 9999 ? { millis } : undefined;
}

export function integerOf(value: unknown): bigint | undefined {
  let big: bigint | undefined;
  if (typeof value === 'number' && Number.isInteger(value)) big = BigInt(value);
  else if (typeof value === 'string' && /^[+-]?[0-9]{1,20}$/.test(value)) big = BigInt(value);
  return big !== undefined && big >= INT64_MIN && big <= INT64_MAX ? big : undefined;
}

export function numberOf(value: unknown): number | undefined {
  let n: number | undefined;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && /^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(value))
    n = Number(value);
  if (n === undefined || !Number.isFinite(n)) return undefined;
  return n === 0 ? 0 : n;
}

/**
 * A decimal amount in millionths, exactly; none with more than 6 significant decimals or beyond ±(2^63 - 2)
 * millionths (README: the extreme longs are reserved for missing values in sorts).
 */
export function amountOf(value: unknown): Amount | undefined {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value;
  if (typeof text !== 'string') return undefined;
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/.exec(text.trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return undefined;
  let decimals = m[3] ?? '';
  const scale = Math.min(decimals.length, 6);
  while (decimals.endsWith('0')) decimals = decimals.slice(0, -1);
  if (decimals.length > 6) return undefined;
  let micros = BigInt(`${m[2] || '0'}${decimals}${'0'.repeat(6 - decimals.length)}`);
  if (m[1] === '-') micros = -micros;
  return micros > INT64_MIN + 1n && micros < INT64_MAX ? { micros, scale } : undefined;
}

export function booleanOf(value: unknown): boolean | undefined {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  return undefined;
}

/** Strings as indexed: numbers and booleans become their text. */
export function stringOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

const COERCIONS: Readonly<Record<ScalarType, (value: unknown) => OracleValue | undefined>> = {
  string: stringOf,
  datetime: instantOf,
  integer: integerOf,
  number: numberOf,
  decimal: amountOf,
  boolean: booleanOf,
};

/** A value of a scalar catalog type, or undefined when it does not fit (then it behaves as null). */
export function coerce(type: ScalarType, value: unknown): OracleValue | undefined {
  return COERCIONS[type](value);
}

// ------------------------------------------------------------------------------------------------------------
// Reading a field of a record (or of an array element under `any`)
// ------------------------------------------------------------------------------------------------------------

/** The scalar type of a typed field (items for arrays of scalars), or undefined. */
export function scalarType(field: FieldRef): ScalarType | undefined {
  if (field.storage === 'flat') return undefined;
  const spec = field.spec.type === 'array' ? field.spec.items : field.spec;
  return spec && spec.type !== 'array' && spec.type !== 'object' ? spec.type : undefined;
}

/** `field.path` relative to the scope: inside `any`, paths start with the array's path. */
function relative(path: string, scope: string): string {
  return scope && path.startsWith(`${scope}.`) ? path.slice(scope.length + 1) : path;
}

/**
 * What the field holds in `obj` (a record, or an array element when `scope` is the array's path): every value
 * that fits its type (several for arrays of scalars). Values inside untyped objects are strings, collected through
 * arrays. `exact` drops strings too long for exact match.
 */
export function fieldValues(obj: unknown, field: FieldRef, scope: string, exact = false): OracleValue[] {
  if (field.storage === 'flat') {
    const objectPath = relative(field.path, scope).slice(0, -(field.subpath.length + 1));
    const out: OracleValue[] = [];
    const root = lookup(obj, objectPath);
    // Only an object is copied into a flat_object field.
    if (isObject(root)) leaves(root, '', field.subpath, out);
    return out;
  }
  const type = scalarType(field);
  if (!type) return [];
  const raw = lookup(obj, relative(field.path, scope));
  const list = field.spec.type === 'array' ? (Array.isArray(raw) ? raw : []) : [raw];
  const out: OracleValue[] = [];
  for (const item of list) {
    const v = item === null || item === undefined ? undefined : coerce(type, item);
    if (v === undefined) continue;
    if (exact && typeof v === 'string' && v.length > MAX_EXACT_LENGTH) continue;
    out.push(v);
  }
  return out;
}

/** flat_object semantics: every leaf at `want` below `value`, through arrays, as a string. */
function leaves(value: unknown, path: string, want: string, out: OracleValue[]): void {
  if (Array.isArray(value)) for (const item of value) leaves(item, path, want, out);
  else if (isObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (key === '' || key.startsWith('.') || key.endsWith('.') || key.includes('..')) continue;
      leaves(child, path === '' ? key : `${path}.${key}`, want, out);
    }
  } else if (path === want && value !== null && value !== undefined) {
    const text = stringOf(value);
    if (text !== undefined) out.push(text);
  }
}

/** The object elements of an array of objects (as `any` sees them). */
export function elements(obj: unknown, field: FieldRef, scope: string): Record<string, unknown>[] {
  const raw = lookup(obj, relative(field.path, scope));
  return Array.isArray(raw) ? raw.slice(0, MAX_ELEMENTS).filter(isObject) : [];
}

// ------------------------------------------------------------------------------------------------------------
// Order
// ------------------------------------------------------------------------------------------------------------

/** Code point order (the UTF-8 byte order of `keyword` fields). */
export function compareStrings(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** Orders two values of the same type. */
export function compare(a: OracleValue, b: OracleValue): number {
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (typeof a === 'object' && typeof b === 'object') {
    if ('millis' in a && 'millis' in b) return a.millis - b.millis;
    if ('micros' in a && 'micros' in b) return a.micros < b.micros ? -1 : a.micros > b.micros ? 1 : 0;
  }
  throw new Error(`oracle: cannot compare ${String(a)} with ${String(b)}`);
}

/**
 * A validated query value (the AST holds canonical forms: ISO instants, integer and decimal strings) as an oracle
 * value of the field's type. Flat paths compare as strings.
 */
export function queryValue(field: FieldRef, value: string | number | boolean): OracleValue {
  const type = scalarType(field) ?? 'string';
  const v = type === 'string' ? String(value) : coerce(type, value);
  if (v === undefined) throw new Error(`oracle: query value ${String(value)} does not fit ${type}`);
  return v;
}
