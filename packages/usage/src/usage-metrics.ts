/**
 * What is counted per organization, connector and hour (docs/operations.md, "Usage and quotas"). The `api_*` ones
 * are calls of the public API by route class; together they are the requests that the requests_per_day quota counts.
 */
export const USAGE_METRICS = [
  'api_execute',
  'api_search',
  'api_sql',
  'api_changes',
  'api_other',
  'upstream_requests',
  'records_synced',
  'webhook_deliveries',
] as const;
export type UsageMetric = (typeof USAGE_METRICS)[number];

export const API_METRICS: ReadonlySet<UsageMetric> = new Set([
  'api_execute',
  'api_search',
  'api_sql',
  'api_changes',
  'api_other',
]);

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The start of the UTC hour of `ms`. */
export function hourOf(ms: number): number {
  return ms - (ms % HOUR_MS);
}

/** The start of the UTC day of `ms`. */
export function dayOf(ms: number): number {
  return ms - (ms % DAY_MS);
}

/** Seconds until the next UTC midnight (at least 1): when a daily quota allows again. */
export function secondsToNextDay(ms: number): number {
  return Math.max(1, Math.ceil((dayOf(ms) + DAY_MS - ms) / 1000));
}
