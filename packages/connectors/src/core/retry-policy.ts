/** One predicate decides what is retryable; one function decides how long to wait. */
export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** A single wait longer than this is not slept through: the caller gets a rate-limit error to reschedule. */
  readonly maxWaitMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 200,
  maxDelayMs: 10_000,
  maxWaitMs: 30_000,
};

export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 408 || status >= 500;
}

/** Exponential backoff with full jitter: a random wait in [0, min(max, base * 2^attempt)]. */
export function backoffDelayMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(random() * ceiling);
}

/** The wait an upstream asks for, in milliseconds, from `Retry-After` (seconds or an HTTP date, RFC 9110 §10.2.3). */
export function requestedWaitMs(headers: Headers, now: number = Date.now()): number | null {
  const retryAfter = headers.get('retry-after');
  if (retryAfter !== null && retryAfter.trim() !== '') {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  return null;
}
