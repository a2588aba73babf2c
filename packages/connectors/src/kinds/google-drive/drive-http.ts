import { type Classify, classifyWithWait, GOOGLE_RETRY_DELAY, waitInBodyMs } from '../../core/classify.ts';
import type { ConnectorContext } from '../../core/define-connector.ts';
import { UpstreamError } from '../../core/errors.ts';
import type { UpstreamRequest } from '../../core/http-client.ts';

/*
 * Drive answers some conditions with 403 that are not about credentials
 * (https://developers.google.com/workspace/drive/api/guides/handle-errors):
 * - `userRateLimitExceeded` / `rateLimitExceeded`: a rate limit, to be retried with exponential backoff (no
 *   Retry-After is sent): the core client's retry loop does it, told so by this kind's `classify`.
 * - `exportSizeLimitExceeded`, `fileNotDownloadable`, `fileNotExportable`, `insufficientFilePermissions`, ...:
 *   the request cannot succeed for this file; reported as upstream_error with Drive's own reason.
 * Only `authError`/`insufficientPermissions` (scopes), `dailyLimitExceeded` and unknown reasons stay auth failures.
 */
const RATE_LIMIT_REASONS = new Set(['userRateLimitExceeded', 'rateLimitExceeded']);
const AUTH_REASONS = new Set([
  'authError',
  'insufficientPermissions',
  'dailyLimitExceeded',
  'forbidden',
  'domainPolicy',
]);

const CLEAR_MESSAGES: Readonly<Record<string, string>> = {
  exportSizeLimitExceeded:
    'the document is too large to export: Drive exports at most 10 MB; export it to another format or open it in Drive',
  fileNotDownloadable:
    'the file has no binary content: Docs Editors files are exported (files_export download), not downloaded',
  fileNotExportable: 'the file cannot be exported: only Docs Editors files are exported; download binary files instead',
  insufficientFilePermissions: 'the account has no access to this file',
};

interface GoogleErrorBody {
  error?: { message?: string; errors?: { reason?: string; message?: string }[] };
}

function parseReason(text: string): { reason: string | null; message: string | null } {
  try {
    const body = JSON.parse(text) as GoogleErrorBody;
    return { reason: body.error?.errors?.[0]?.reason ?? null, message: body.error?.message ?? null };
  } catch {
    return { reason: null, message: null };
  }
}

const googleDefaults = classifyWithWait((_, excerpt) => waitInBodyMs(excerpt, GOOGLE_RETRY_DELAY));

/** Drive's reading of its error answers: the 403s above by reason, everything else as Google APIs answer. */
export const classifyDrive: Classify = (response, excerpt) => {
  if (response.status !== 403) return googleDefaults(response, excerpt);
  const { reason, message } = parseReason(excerpt);
  if (reason && RATE_LIMIT_REASONS.has(reason)) return { type: 'rate_limited' };
  if (reason && !AUTH_REASONS.has(reason)) {
    const clear = CLEAR_MESSAGES[reason] ?? `the upstream refused the request (403 ${reason})`;
    const error = new UpstreamError(
      'upstream_error',
      `${clear}${message ? ` — Drive says: ${message}` : ''}`,
      403,
      excerpt,
    );
    return { type: 'permanent', error };
  }
  return { type: 'auth' };
};

/** `ctx.http.send` under the call's signal; the response is returned unread, so media can stream. */
export function driveSend(ctx: ConnectorContext, request: UpstreamRequest): Promise<Response> {
  return ctx.http.send({ ...request, ...(ctx.signal ? { signal: ctx.signal } : {}) });
}

/** JSON request through `driveSend`; an empty body (DELETE → 204) is `undefined`. */
export async function driveJson<T = unknown>(ctx: ConnectorContext, request: UpstreamRequest): Promise<T> {
  return ctx.http.readJson<T>(await driveSend(ctx, request));
}
