/**
 * Value coercions shared by the document builder (what gets indexed), the validator (query values) and the
 * reference evaluator, so all three agree on what a value is. `undefined` means "not a value of this type":
 * the document builder leaves it out of the index (it stays in results) and the validator reports it.
 */

const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?)?\s?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

/**
 * Parses an upstream instant: `2024-02-10`, `2024-02-10T00:01:56Z`, `...+0000`, `...+01:00`, fractions up to
 * nanoseconds (kept to the millisecond, as OpenSearch `date` does). No offset means UTC.
 * Returns epoch milliseconds, or undefined when the text is not such an instant.
 */
export function parseInstantMillis(text: string): number | undefined {
  const m = INSTANT.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((p) => Number(p ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const millis = Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3));
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const daysInMonth = new Date(Date.UTC(2000, month, 0)).getUTCDate() + (month === 2 && !isLeap(year) ? -1 : 0);
  if (day > daysInMonth) return undefined;
  let offsetMinutes = 0;
  if (m[9]) {
    const oh = Number(m[10]);
    const om = Number(m[11] ?? 0);
    if (oh > 18 || om > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  return date.getTime() - offsetMinutes * 60_000;
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** An instant as the canonical ISO string that is indexed and sent in queries, e.g. `2024-02-10T00:01:56.000Z`. */
export function toInstant(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const millis = parseInstantMillis(value);
  if (millis === undefined) return undefined;
  const iso = new Date(millis).toISOString();
  // Years outside 0000-9999 print as +/-YYYYYY, which the index's date format does not read.
  return /^\d{4}-/.test(iso) ? iso : undefined;
}

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

/** A 64-bit integer (upstreams send int64 as strings) as its canonical decimal string. */
export function toInteger(value: unknown): string | undefined {
  let big: bigint;
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) return undefined;
    big = BigInt(value);
  } else if (typeof value === 'string' && /^[+-]?\d{1,20}$/.test(value)) {
    big = BigInt(value);
  } else {
    return undefined;
  }
  return big >= LONG_MIN && big <= LONG_MAX ? big.toString() : undefined;
}

const NUMERIC = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A finite double; numeric strings are read as numbers. */
export function toNumber(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && NUMERIC.test(value) ? Number(value) : NaN;
  return Number.isFinite(n) ? (Object.is(n, -0) ? 0 : n) : undefined;
}

export function toBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  return undefined;
}

/** Strings compare by code point, which is the byte order of UTF-8 that `keyword` fields use. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    // A surrogate (astral code point) sorts after every BMP unit, which UTF-16 order gets wrong above U+E000.
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}
