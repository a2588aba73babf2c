import { describe, expect, it } from 'vitest';
import {
  decimalDocument,
  divideScaled,
  formatScaledDecimal,
  joinDecimalSums,
  toDecimal,
  toScaledDecimal,
} from './decimal.ts';

describe('decimal amounts', () => {
  it('reads upstream strings and JSON numbers exactly at scale 6', () => {
    expect(toScaledDecimal('8387.12')).toBe(8_387_120_000n);
    expect(toScaledDecimal('976.08')).toBe(976_080_000n);
    expect(toScaledDecimal(0.1)).toBe(100_000n);
    expect(toScaledDecimal('-0.5')).toBe(-500_000n);
    expect(toScaledDecimal('.5')).toBe(500_000n);
    expect(toScaledDecimal('1.2300000000')).toBe(1_230_000n);
    expect(toScaledDecimal(' 7 ')).toBe(7_000_000n);
  });

  it('rejects what it cannot hold exactly', () => {
    for (const bad of ['1.0000001', 'abc', '', '.', '1e3', '1,5', Number.NaN, true, null, '-9223372036854.775808']) {
      expect(toScaledDecimal(bad), String(bad)).toBeUndefined();
    }
    // The extreme longs are the engine's sort sentinels for missing values.
    expect(toScaledDecimal('9223372036854.775807')).toBeUndefined();
    expect(toScaledDecimal('9223372036854.775806')).toBe(2n ** 63n - 2n);
    expect(toScaledDecimal('-9223372036854.775806')).toBe(-(2n ** 63n - 2n));
  });

  it('orders as numbers, not as text: 8387.12 > 976.08', () => {
    expect(toScaledDecimal('8387.12')! > toScaledDecimal('976.08')!).toBe(true);
  });

  it('prints the shortest canonical text', () => {
    expect(formatScaledDecimal(8_387_120_000n)).toBe('8387.12');
    expect(formatScaledDecimal(-500_000n)).toBe('-0.5');
    expect(formatScaledDecimal(0n)).toBe('0');
    expect(toDecimal('-0.00')).toBe('0');
    expect(toDecimal('0010.100')).toBe('10.1');
  });

  it('splits into floor units and a non-negative fraction', () => {
    expect(decimalDocument('-1.25')).toEqual({ scaled: '-1250000', units: '-2', fraction: '750000', scale: '2' });
    expect(decimalDocument('8387.12')).toEqual({ scaled: '8387120000', units: '8387', fraction: '120000', scale: '2' });
  });

  it('keeps the scale the amount was written with, for sums that read as money', () => {
    expect(decimalDocument('100.50')?.scale).toBe('2');
    expect(decimalDocument('7')?.scale).toBe('0');
    expect(formatScaledDecimal(9463700000n, 2)).toBe('9463.70');
    expect(formatScaledDecimal(9463700000n)).toBe('9463.7');
    expect(formatScaledDecimal(-500000n, 3)).toBe('-0.500');
    expect(formatScaledDecimal(1234567n, 2)).toBe('1.234567');
    expect(decimalDocument('x')).toBeUndefined();
  });

  it('joins sums of units and fractions exactly where a double sum would drift', () => {
    // 0.1 + 0.2 as doubles is 0.30000000000000004; as units and fractions it is 0 + 300000.
    expect(formatScaledDecimal(joinDecimalSums(0, 300_000))).toBe('0.3');
    // Ten billion in cents: beyond 2^53 micro-units, still exact.
    expect(formatScaledDecimal(joinDecimalSums(10_000_000_000, 990_000))).toBe('10000000000.99');
  });

  it('averages with half-away-from-zero rounding at scale 6', () => {
    expect(formatScaledDecimal(divideScaled(1_000_000n, 3))).toBe('0.333333');
    expect(formatScaledDecimal(divideScaled(2_000_000n, 3))).toBe('0.666667');
    expect(formatScaledDecimal(divideScaled(-2_000_000n, 3))).toBe('-0.666667');
    expect(formatScaledDecimal(divideScaled(5n, 2))).toBe('0.000003');
  });
});
