import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoInstant } from './iso-instant.ts';

describe('isoInstant', () => {
  it('writes what Date#toISOString writes, for any instant a Date holds', () => {
    const instant = fc.integer({ min: -8_640_000_000_000_000, max: 8_640_000_000_000_000 });
    fc.assert(
      fc.property(instant, (millis) => {
        expect(isoInstant(millis)).toBe(new Date(millis).toISOString());
      }),
      { numRuns: 20_000 },
    );
  });

  it('writes the edges of the four-digit years, leap days and day boundaries as Date does', () => {
    for (const text of [
      '0000-01-01T00:00:00.000Z',
      '0000-02-29T12:00:00.000Z',
      '1899-12-31T23:59:59.999Z',
      '1970-01-01T00:00:00.000Z',
      '1969-12-31T23:59:59.999Z',
      '2000-02-29T00:00:00.000Z',
      '2100-03-01T00:00:00.000Z',
      '2024-12-31T23:59:59.999Z',
      '9999-12-31T23:59:59.999Z',
    ]) {
      const millis = Date.parse(text);
      for (const at of [millis - 1, millis, millis + 1]) expect(isoInstant(at)).toBe(new Date(at).toISOString());
    }
    expect(isoInstant(Date.parse('+010000-01-01T00:00:00.000Z'))).toBe('+010000-01-01T00:00:00.000Z');
  });

  it('takes years around the calendar bounds through Date, and days across the whole of them', () => {
    const years = fc.integer({ min: -2000, max: 12_000 });
    fc.assert(
      fc.property(years, fc.integer({ min: 0, max: 366 * 86_400_000 }), (year, offset) => {
        const millis = Date.UTC(2000, 0, 1) + (year - 2000) * 365.2425 * 86_400_000 + offset;
        const whole = Math.round(millis);
        expect(isoInstant(whole)).toBe(new Date(whole).toISOString());
      }),
      { numRuns: 5000 },
    );
  });
});
