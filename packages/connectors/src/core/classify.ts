import type { UpstreamError } from './errors.ts';
import { isRetryableStatus, requestedWaitMs } from './retry-policy.ts';

/**
 * What an upstream's error answer means, decided once per answer by the kind's `classify` hook (or the default):
 * - `auth`: the credentials were refused; a 401 refreshes them once (OAuth), then it is `upstream_auth_failed`;
 * - `rate_limited`: wait (`waitMs`, else Retry-After, else backoff) and try again, or hand the wait to the caller;
 * - `retryable`: a transient failure, retried with backoff until the attempts run out;
 * - `permanent`: not retried; `error` replaces the default error for the status (a vendor's own reason).
 */
export type ResponseClass =
  | { readonly type: 'auth' }
  | { readonly type: 'rate_limited'; readonly waitMs?: number | null }
  | { readonly type: 'retryable'; readonly waitMs?: number | null }
  | { readonly type: 'permanent'; readonly error?: UpstreamError };

/**
 * A kind's reading of an error answer (`excerpt` is the body, bounded and redacted). Undefined leaves the answer to
 * the default: 401/403 auth, 429 rate limited, 408/5xx retryable, anything else permanent.
 */
export type Classify = (response: Response, excerpt: string) => ResponseClass | undefined;

export function defaultClassify(response: Response): ResponseClass {
  const { status } = response;
  if (status === 401 || status === 403) return { type: 'auth' };
  if (status === 429) return { type: 'rate_limited', waitMs: requestedWaitMs(response.headers) };
  if (isRetryableStatus(status)) return { type: 'retryable', waitMs: requestedWaitMs(response.headers) };
  return { type: 'permanent' };
}

/** A wait in seconds found by `pattern` (one capture group) in a body: the vendors that put it there. */
export function waitInBodyMs(excerpt: string, pattern: RegExp): number | null {
  const seconds = pattern.exec(excerpt)?.[1];
  return seconds === undefined ? null : Number(seconds) * 1000;
}

/**
 * The default classes, with the wait of a rate limit or transient failure taken from the kind's own signal when the
 * answer has no Retry-After (incident.io and Google put it in the body, Sentry in a header of its own).
 */
export function classifyWithWait(wait: (response: Response, excerpt: string) => number | null): Classify {
  return (response, excerpt) => {
    const verdict = defaultClassify(response);
    if ((verdict.type === 'rate_limited' || verdict.type === 'retryable') && verdict.waitMs == null) {
      return { type: verdict.type, waitMs: wait(response, excerpt) };
    }
    return verdict;
  };
}

/** Google APIs put the wait in the error body: `"retryDelay": "7s"` (google.rpc.RetryInfo). */
export const GOOGLE_RETRY_DELAY = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/;
