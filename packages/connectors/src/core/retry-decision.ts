import { ConnectorError, UpstreamError, UpstreamRateLimitError } from './errors.ts';

/**
 * The one retry decision, read by every caller that may try again: the HTTP client's loop, the sync job (a
 * permanent failure ends the job at once), the webhook job and the API's error mapping (a permanent upstream 4xx
 * is the caller's to fix: 400 `upstream_rejected`).
 *
 * - an upstream failure carries its verdict (`UpstreamError.retryable`, set by the kind's `classify`);
 * - a rate limit is always worth another try, after its wait;
 * - any other typed error is about the request itself (invalid params, an unsupported action): never retried;
 * - anything else is infrastructure (a database, the index, the network) and is transient.
 *
 * @example
 * if (!isRetryable(error)) throw new UnrecoverableError(failureReason(error));
 */
export function isRetryable(error: unknown): boolean {
  if (error instanceof UpstreamRateLimitError) return true;
  if (error instanceof UpstreamError) return error.retryable;
  if (error instanceof ConnectorError) return false;
  return true;
}

const REASON_LIMIT = 1000;

/** Why a call failed, with the upstream's own words (its status and body excerpt) when it gave any. */
export function failureReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (!(error instanceof UpstreamError) || !error.upstreamBody) return message.slice(0, REASON_LIMIT);
  return `${message}: ${error.upstreamBody}`.slice(0, REASON_LIMIT);
}
