/** Milliseconds in a day. */
const DAY_MS = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 10000-01-01T00:00:00.000Z: between them, toISOString writes a four-digit year. */
const FIRST_FOUR_DIGIT_YEAR_MS = -62_167_219_200_000;
const FIRST_FIVE_DIGIT_YEAR_MS = 253_402_300_800_000;

const twoDigits = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const threeDigits = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);
const fourDigits = (n: number) => (n < 1000 ? `0${threeDigits(n)}` : `${n}`);

/**
 * `new Date(millis).toISOString()` for an integer instant, written by arithmetic: the same text, several times
 * faster (a 31-day histogram writes 31 keys per search). The civil date from the day number is Howard Hinnant's
 * `civil_from_days` (https://howardhinnant.github.io/date_algorithms.html#civil_from_days). Instants outside the
 * years 0000–9999 (whose years toISOString writes with a sign and six digits) go through Date.
 */
export function isoInstant(millis: number): string {
  if (!Number.isInteger(millis) || millis < FIRST_FOUR_DIGIT_YEAR_MS || millis >= FIRST_FIVE_DIGIT_YEAR_MS) {
    return new Date(millis).toISOString();
  }
  const days = Math.floor(millis / DAY_MS);
  let rest = millis - days * DAY_MS;
  const shifted = days + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const ms = rest - seconds * 1000;
  return `${fourDigits(year)}-${twoDigits(month)}-${twoDigits(day)}T${twoDigits(hours)}:${twoDigits(minutes)}:${twoDigits(seconds)}.${threeDigits(ms)}Z`;
}
