/**
 * Expected failures are values with a code; the API maps them to problem+json in one place.
 * `name` is set on each class so the kind of error survives a process boundary (queue payloads, logs).
 */
export type ErrorCode =
  | 'invalid_request'
  | 'invalid_params'
  | 'invalid_filter'
  | 'invalid_cursor'
  | 'query_too_costly'
  | 'unsupported_action'
  | 'unsupported_mode'
  | 'upstream_error'
  | 'upstream_auth_failed'
  | 'upstream_not_found'
  | 'rate_limited'
  | 'payload_too_large';

export interface FieldProblem {
  /** JSON pointer into the request, e.g. `/params/end_date`. */
  readonly path: string;
  readonly message: string;
}

export class ConnectorError extends Error {
  override name = 'ConnectorError';
  readonly code: ErrorCode;
  readonly errors: readonly FieldProblem[];
  constructor(code: ErrorCode, message: string, errors: readonly FieldProblem[] = []) {
    super(message);
    this.code = code;
    this.errors = errors;
  }
}

/**
 * The upstream answered with an error (or not at all). `body` is a bounded excerpt, already redacted.
 * `retryable` is the verdict on this failure, set where the answer was read (the kind's `classify` in the HTTP
 * client); when a site does not say, it follows from the code and status: refused credentials, a missing resource
 * and a 4xx other than 408/429 are permanent, anything else (5xx, unreachable, a malformed answer) is transient.
 * Every caller decides with `isRetryable` (retry-decision.ts), never from the status on its own.
 */
export class UpstreamError extends ConnectorError {
  override name = 'UpstreamError';
  readonly upstreamStatus: number | null;
  readonly upstreamBody: string | null;
  readonly retryable: boolean;
  constructor(
    code: 'upstream_error' | 'upstream_auth_failed' | 'upstream_not_found',
    message: string,
    upstreamStatus: number | null,
    upstreamBody: string | null,
    options: { readonly retryable?: boolean } = {},
  ) {
    super(code, message);
    this.upstreamStatus = upstreamStatus;
    this.upstreamBody = upstreamBody;
    this.retryable = options.retryable ?? transientByDefault(code, upstreamStatus);
  }
}

function transientByDefault(code: UpstreamError['code'], status: number | null): boolean {
  if (code !== 'upstream_error') return false;
  if (status === null) return true;
  return status === 408 || status === 429 || status >= 500 || status < 400;
}

/** The upstream kept answering 429 past what a request may wait; callers delay by `retryAfterSeconds`. */
export class UpstreamRateLimitError extends ConnectorError {
  override name = 'UpstreamRateLimitError';
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number) {
    super('rate_limited', message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export function isConnectorError(error: unknown): error is ConnectorError {
  return error instanceof ConnectorError;
}

/** Turns a zod-style issue path into a JSON pointer under `prefix`. */
export function toPointer(prefix: string, path: readonly PropertyKey[]): string {
  const escaped = path.map((p) => String(p).replaceAll('~', '~0').replaceAll('/', '~1'));
  return [prefix, ...escaped].join('/');
}
