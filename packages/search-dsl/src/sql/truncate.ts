import type { HistogramInterval } from '../params/search-params-schema.ts';

/**
 * `DATE_TRUNC(unit, instant)` in UTC, as the engine's calendar buckets: the start of the hour, day, ISO week
 * (Monday) or month, as an ISO instant.
 */
export function truncateInstant(iso: string, unit: HistogramInterval): string {
  const d = new Date(iso);
  const start = new Date(0);
  const [y, m, day] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()];
  if (unit === 'month') start.setUTCFullYear(y, m, 1);
  else if (unit === 'week') start.setUTCFullYear(y, m, day - ((d.getUTCDay() + 6) % 7));
  else start.setUTCFullYear(y, m, day);
  if (unit === 'hour') start.setUTCHours(d.getUTCHours());
  return start.toISOString();
}
