import type { ConnectorContext } from '../../core/define-connector.ts';
import { UpstreamError, UpstreamRateLimitError } from '../../core/errors.ts';
import { defaultSleep, type UpstreamRequest } from '../../core/http-client.ts';
import { backoffDelayMs, DEFAULT_RETRY_POLICY } from '../../core/retry-policy.ts';

/*
 * Drive answers some conditions with 403 that are not about credentials
 * (https://developers.google.com/workspace/drive/api/guides/handle-errors):
 * - `userRateLimitExceeded` / `rateLimitExceeded`: a rate limit, to be retried with exponential backoff (no
 *   Retry-After is sent). The core client treats every 403 as a credential failure, so this kind accepts 403 itself
 *   and retries here. [Candidate for core: a per-kind "retryable response" hook.]
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
const MAX_ATTEMPTS = DEFAULT_RETRY_POLICY.maxAttempts;

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

/** `ctx.http.send` with Drive's 403 semantics (above); the response is returned unread, so media can stream. */
export async function driveSend(ctx: ConnectorContext, request: UpstreamRequest): Promise<Response> {
  const accept = [...(request.acceptStatuses ?? []), 403];
  for (let attempt = 0; ; attempt++) {
    const response = await ctx.http.send({
      ...request,
      acceptStatuses: accept,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    if (response.status !== 403 || request.acceptStatuses?.includes(403)) return response;
    const text = ctx.http.excerpt(await response.text().catch(() => ''));
    const { reason, message } = parseReason(text);
    if (reason && RATE_LIMIT_REASONS.has(reason)) {
      const waitMs = backoffDelayMs(DEFAULT_RETRY_POLICY, attempt);
      if (attempt + 1 >= MAX_ATTEMPTS) {
        throw new UpstreamRateLimitError(
          `the upstream rate limit was reached (403 ${reason})`,
          Math.max(1, Math.ceil(waitMs / 1000)),
        );
      }
      await defaultSleep(waitMs, ctx.signal);
      continue;
    }
    if (reason && !AUTH_REASONS.has(reason)) {
      const clear = CLEAR_MESSAGES[reason] ?? `the upstream refused the request (403 ${reason})`;
      throw new UpstreamError('upstream_error', `${clear}${message ? ` — Drive says: ${message}` : ''}`, 403, text);
    }
    throw new UpstreamError('upstream_auth_failed', 'the upstream rejected the stored credentials (403)', 403, text);
  }
}

/** JSON request through `driveSend`; an empty body (DELETE → 204) is `undefined`. */
export async function driveJson<T = unknown>(ctx: ConnectorContext, request: UpstreamRequest): Promise<T> {
  return ctx.http.readJson<T>(await driveSend(ctx, request));
}
