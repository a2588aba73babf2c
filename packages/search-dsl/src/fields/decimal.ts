/**
 * Decimal amounts (catalog type `decimal`): upstreams send money as decimal strings (`"8387.12"`), and neither
 * text order ("976.08" > "8387.12") nor binary floats (0.1 + 0.2) compare or add them correctly.
 *
 * Representation in the index, chosen so that every operation is exact with integer arithmetic only:
 * - `<field>.scaled`: the amount × 10^6 as a `long` (fixed scale 6: micro-units, as Google Ads' `*_micros`). Exact
 *   eq/in/ranges/sort and order; amounts up to ±9,223,372,036,854.775806 with at most 6 digits after the point.
 *   A fixed scale (rather than `scaled_float`, which is a double at query and aggregation time and rounds values)
 *   means two amounts compare exactly as the integers they are.
 * - `<field>.units` (floor of the amount) and `<field>.fraction` (the rest × 10^6, 0 ≤ fraction < 10^6), both `long`:
 *   the engine's `sum` adds in doubles, which is exact for integers only while the running total stays below 2^53.
 *   Summing the scaled value would break that at 9 billion units; summing units and fractions separately stays
 *   exact up to 9·10^15 units (and 9·10^9 records), and the two sums are joined with big integers.
 * - `<field>.scale`: how many digits the upstream wrote after the point (`"100.50"`: 2), so that a sum keeps the
 *   scale of its inputs as an amount of money does (976.08 + 8387.12 + 100.50 = `9463.70`, as Postgres' numeric).
 * The upstream's own string stays in `_record` and is what results return.
 * A value that is not such a decimal (more than 6 digits after the point once trailing zeros are dropped, out of
 * range, not numeric) is left out of the indexed copy and behaves as null, like any ill-typed value.
 */
export const DECIMAL_SCALE = 6;
const FACTOR = 10n ** BigInt(DECIMAL_SCALE);
/**
 * ±(2^63 - 2): the two extreme longs are the engine's sort sentinels for missing values (`_last` is Long.MAX_VALUE
 * ascending, Long.MIN_VALUE descending), so an amount there would sort among the missing ones (found by the
 * differential test).
 */
const SCALED_LIMIT = 2n ** 63n - 2n;

export const DECIMAL_SUBFIELDS = Object.freeze({
  scaled: 'scaled',
  units: 'units',
  fraction: 'fraction',
  scale: 'scale',
});

const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?$/;

/** The amount × 10^6 as a big integer, or undefined when `value` is not a decimal the index can hold exactly. */
export function toScaledDecimal(value: unknown): bigint | undefined {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    // The shortest round-trip text of the double is the decimal the sender meant (0.1 → "0.1").
    text = String(value);
  } else if (typeof value === 'string') text = value.trim();
  else return undefined;
  const m = DECIMAL_TEXT.exec(text);
  if (!m) return undefined;
  const [, sign, whole = '', rawFraction = ''] = m;
  if (whole === '' && rawFraction === '') return undefined;
  const fraction = rawFraction.replace(/0+$/, '');
  if (fraction.length > DECIMAL_SCALE) return undefined;
  const magnitude = BigInt(whole || '0') * FACTOR + BigInt(fraction.padEnd(DECIMAL_SCALE, '0') || '0');
  const scaled = sign === '-' ? -magnitude : magnitude;
  return scaled >= -SCALED_LIMIT && scaled <= SCALED_LIMIT ? scaled : undefined;
}

/**
 * A scaled amount as its shortest decimal text, with at least `minScale` digits after the point:
 * `8387120000n` → `"8387.12"`, `-500000n` → `"-0.5"`, `(9463700000n, 2)` → `"9463.70"`.
 */
export function formatScaledDecimal(scaled: bigint, minScale = 0): string {
  const negative = scaled < 0n;
  const magnitude = negative ? -scaled : scaled;
  const whole = (magnitude / FACTOR).toString();
  const digits = (magnitude % FACTOR).toString().padStart(DECIMAL_SCALE, '0');
  const keep = Math.max(Math.min(minScale, DECIMAL_SCALE), digits.replace(/0+$/, '').length);
  const fraction = digits.slice(0, keep);
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** How many digits an amount's text has after the point, trailing zeros included (`"100.50"`: 2); 0 for others. */
export function decimalScale(value: unknown): number {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  const fraction = DECIMAL_TEXT.exec(text)?.[3] ?? '';
  return Math.min(fraction.length, DECIMAL_SCALE);
}

/** The canonical text of a decimal value (`"08387.120"` → `"8387.12"`), or undefined when it is not one. */
export function toDecimal(value: unknown): string | undefined {
  const scaled = toScaledDecimal(value);
  return scaled === undefined ? undefined : formatScaledDecimal(scaled);
}

/** The indexed copy of an amount: its scaled value and its units/fraction split (as exact decimal strings). */
export function decimalDocument(value: unknown): Record<string, string> | undefined {
  const scaled = toScaledDecimal(value);
  if (scaled === undefined) return undefined;
  // Floor division, so that the fraction is never negative: -1.25 = -2 units + 0.75.
  let units = scaled / FACTOR;
  let fraction = scaled % FACTOR;
  if (fraction < 0n) {
    units -= 1n;
    fraction += FACTOR;
  }
  return {
    [DECIMAL_SUBFIELDS.scaled]: scaled.toString(),
    [DECIMAL_SUBFIELDS.units]: units.toString(),
    [DECIMAL_SUBFIELDS.fraction]: fraction.toString(),
    [DECIMAL_SUBFIELDS.scale]: String(decimalScale(value)),
  };
}

/** Joins the engine's sums of units and fractions (each an exact integer in a double) into the exact total. */
export function joinDecimalSums(unitsSum: number, fractionSum: number): bigint {
  return BigInt(Math.round(unitsSum)) * FACTOR + BigInt(Math.round(fractionSum));
}

/** `scaled / count` rounded half away from zero to the scale, for averages of amounts. */
export function divideScaled(scaled: bigint, count: number): bigint {
  const n = BigInt(count);
  const quotient = scaled / n;
  const remainder = scaled % n;
  const twice = (remainder < 0n ? -remainder : remainder) * 2n;
  if (twice >= n) return quotient + (scaled < 0n ? -1n : 1n);
  return quotient;
}
