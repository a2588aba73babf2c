import type { QuotaName } from '@conduit/config';
import { secondsToNextDay } from './usage-metrics.ts';

/**
 * An organization is at one of its quotas: 403 `quota_exceeded`, or 429 with Retry-After (the next UTC day) for
 * requests_per_day. Its fields name the quota, its limit and what is used; the API maps it to problem+json.
 */
export class QuotaExceededError extends Error {
  override name = 'QuotaExceededError';
  readonly code = 'quota_exceeded';
  readonly quota: QuotaName;
  readonly limit: number;
  readonly used: number;
  readonly status: 403 | 429;
  readonly retryAfterSeconds: number | undefined;

  constructor(quota: QuotaName, limit: number, used: number, now = Date.now()) {
    super(`the organization's ${quota} quota is ${limit} and ${used} ${used === 1 ? 'is' : 'are'} used`);
    this.quota = quota;
    this.limit = limit;
    this.used = used;
    this.status = quota === 'requests_per_day' ? 429 : 403;
    this.retryAfterSeconds = quota === 'requests_per_day' ? secondsToNextDay(now) : undefined;
  }
}
