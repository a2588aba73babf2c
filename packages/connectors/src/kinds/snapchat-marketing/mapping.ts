import type { UpstreamRecord } from '../../core/define-connector.ts';
import { UpstreamError } from '../../core/errors.ts';
import { isPlainObject } from '../../core/values.ts';

/**
 * Snap wraps every object twice: `{request_status, paging: {next_link}, campaigns: [{sub_request_status,
 * campaign: {...}}]}` (https://developers.snap.com/api/marketing-api/Ads-API/introduction#response-format).
 *
 * Per-item failures (`sub_request_status` other than SUCCESS) are never dropped silently:
 * - list: the records that succeeded are returned and the failures are reported in `meta.failures`
 *   (`[{index, sub_request_status, reason}]`, present only when there are some), so one unreadable object does not
 *   hide a whole page from the caller;
 * - get and replication: an UpstreamError (`upstream_error`) naming the failure, because a get has nothing else to
 *   return and replication must not record a cursor past an object it could not read.
 */
export interface SnapFailure {
  readonly index: number;
  readonly sub_request_status: string;
  readonly reason: string | null;
}

export interface SnapUnwrapped {
  readonly records: UpstreamRecord[];
  readonly failures: SnapFailure[];
  readonly nextLink: string | null;
}

export function unwrapSnap(body: unknown, plural: string, singular: string): SnapUnwrapped {
  if (!isPlainObject(body))
    throw new UpstreamError('upstream_error', 'the upstream answered without a JSON object', null, null);
  if (body.request_status !== undefined && body.request_status !== 'SUCCESS') {
    const reason = typeof body.debug_message === 'string' ? body.debug_message : String(body.request_status);
    throw new UpstreamError(
      'upstream_error',
      `the upstream request failed: ${reason}`,
      null,
      JSON.stringify(body).slice(0, 2048),
    );
  }
  const items = body[plural];
  if (!Array.isArray(items)) {
    throw new UpstreamError('upstream_error', `the upstream answer has no '${plural}' list`, null, null);
  }
  const records: UpstreamRecord[] = [];
  const failures: SnapFailure[] = [];
  items.forEach((item, index) => {
    const status = isPlainObject(item) ? item.sub_request_status : undefined;
    const record = isPlainObject(item) ? item[singular] : undefined;
    if ((status === undefined || status === 'SUCCESS') && isPlainObject(record)) {
      records.push(record);
      return;
    }
    const reason = isPlainObject(item) ? (item.sub_request_error_reason ?? item.debug_message ?? null) : null;
    failures.push({
      index,
      sub_request_status: String(status ?? 'MISSING'),
      reason: reason === null ? null : String(reason),
    });
  });
  const paging = isPlainObject(body.paging) ? body.paging : {};
  const nextLink = typeof paging.next_link === 'string' && paging.next_link !== '' ? paging.next_link : null;
  return { records, failures, nextLink };
}

export function failureError(plural: string, failures: readonly SnapFailure[]): UpstreamError {
  const detail = failures
    .map((f) => `#${f.index} ${f.sub_request_status}${f.reason ? `: ${f.reason}` : ''}`)
    .join('; ');
  return new UpstreamError(
    'upstream_error',
    `the upstream could not return ${failures.length} of the ${plural}: ${detail}`,
    200,
    JSON.stringify(failures).slice(0, 2048),
  );
}
