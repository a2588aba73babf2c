import { describe, expect, it } from 'vitest';
import { compareCodePoints, parseInstantMillis, toBoolean, toInstant, toInteger, toNumber } from './values.ts';

describe('instants', () => {
  const base = Date.UTC(2024, 1, 10, 0, 1, 56);
  it.each([
    ['2024-02-10T00:01:56+0000', base],
    ['2024-02-10T00:01:56Z', base],
    ['2024-02-10t00:01:56z', base],
    ['2024-02-10T01:01:56+01:00', base],
    ['2024-02-09T19:01:56-05', base],
    ['2024-02-10 00:01:56', base],
    ['2024-02-10T00:01:56.123456789Z', base + 123],
    ['2024-02-10T00:01', base - 56_000],
    ['2024-02-10', Date.UTC(2024, 1, 10)],
    ['2024-02-29', Date.UTC(2024, 1, 29)],
    ['0001-01-01', Date.UTC(2000, 0, 1) - 63_082_281_600_000],
  ])('reads %s', (text, millis) => {
    expect(parseInstantMillis(text)).toBe(millis);
  });

  it.each([
    '2023-02-29',
    '2024-13-01',
    '2024-02-10T24:00',
    '2024-2-1',
    'soon',
    '1707523316000',
    '2024-02-10T00:01:56+19:00',
  ])('refuses %s', (text) => {
    expect(parseInstantMillis(text)).toBeUndefined();
  });

  it('normalises to ISO milliseconds', () => {
    expect(toInstant('2024-02-10T01:01:56+01:00')).toBe('2024-02-10T00:01:56.000Z');
    expect(toInstant(1707523316000)).toBeUndefined();
  });
});

describe('numbers', () => {
  it('reads int64 exactly, from numbers and strings', () => {
    expect(toInteger('9007199254740993')).toBe('9007199254740993');
    expect(toInteger(-7)).toBe('-7');
    expect(toInteger('+7')).toBe('7');
    expect(toInteger('9223372036854775808')).toBeUndefined();
    expect(toInteger(1.5)).toBeUndefined();
    expect(toInteger('1e3')).toBeUndefined();
  });

  it('reads doubles and numeric strings', () => {
    expect(toNumber('2.5')).toBe(2.5);
    expect(toNumber('-1e3')).toBe(-1000);
    expect(toNumber(-0)).toBe(0);
    expect(toNumber('abc')).toBeUndefined();
    expect(toNumber(Number.NaN)).toBeUndefined();
    expect(toNumber('')).toBeUndefined();
  });

  it('reads booleans and their strings', () => {
    expect([toBoolean(true), toBoolean('false'), toBoolean('yes')]).toEqual([true, false, undefined]);
  });
});

describe('compareCodePoints', () => {
  it('orders by code point (UTF-8 byte order), not UTF-16 unit', () => {
    expect(compareCodePoints('\uFF21', '𝔸')).toBeLessThan(0);
    expect('\uFF21' < '𝔸').toBe(false);
    expect(compareCodePoints('a', 'ab')).toBeLessThan(0);
    expect(compareCodePoints('B', 'a')).toBeLessThan(0);
  });
});
