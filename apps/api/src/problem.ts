import {
  ConnectorError,
  type ErrorCode,
  type FieldProblem,
  isRetryable,
  UpstreamError,
  UpstreamRateLimitError,
} from '@conduit/connectors';
import { isSearchQueryError, type SearchErrorCode, type SqlQueryError } from '@conduit/search-dsl';
import { QuotaExceededError } from '@conduit/usage';
import type { Context } from 'hono';
import type { z } from 'zod';
import type { ProblemSchema } from './openapi/schemas.ts';

/**
 * Every code the API answers with. docs/api.md ("Errors") lists each with its status; problem.test.ts keeps the two
 * in step. The connectors' and the query languages' codes come with their errors; the rest are the API's own.
 */
export type ApiErrorCode =
  | ErrorCode
  | SearchErrorCode
  | SqlQueryError['code']
  | (typeof API_OWN_CODES)[number]
  | 'upstream_rejected'
  | 'internal_error';

/** The codes only the API's own routes and middleware throw (as ApiError). */
export const API_OWN_CODES = [
  'unauthorized',
  'invalid_signature',
  'invalid_state',
  'forbidden',
  'quota_exceeded',
  'not_found',
  'connector_not_found',
  'definition_not_found',
  'kind_not_found',
  'webhook_endpoint_not_found',
  'method_not_allowed',
  'connector_exists',
  'definition_in_use',
  'idempotency_in_progress',
  'webhook_endpoint_limit',
  'cursor_expired',
  'invalid_definition',
  'idempotency_key_reused',
  'search_unavailable',
  'console_not_built',
] as const;

/** The statuses an ApiError may carry (RFC 9110). */
export type ApiErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 410 | 413 | 422 | 429 | 502 | 503;

export interface ApiErrorOptions {
  /** One entry per problem, each with the JSON pointer of what it is about. */
  readonly errors?: readonly FieldProblem[];
  /** Sent as Retry-After. */
  readonly retryAfterSeconds?: number;
  /** The error this one answers for (kept for the logs; never sent to the caller). */
  readonly cause?: unknown;
}

/**
 * API-level failures that are not about a connector: auth, tenancy, missing resources, limits. Like hono's
 * HTTPException (https://hono.dev/docs/api/exception), it carries a typed status and the error it stands for.
 *
 * @example
 * throw new ApiError(404, 'connector_not_found', `no connector ${id}`);
 * throw new ApiError(503, 'search_unavailable', 'the index cannot answer', { cause: error, retryAfterSeconds: 1 });
 */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: ApiErrorStatus;
  readonly code: ApiErrorCode;
  readonly errors: readonly FieldProblem[];
  readonly retryAfterSeconds: number | undefined;
  constructor(status: ApiErrorStatus, code: ApiErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = status;
    this.code = code;
    this.errors = options.errors ?? [];
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** RFC 9457 problem details, as the OpenAPI document describes them. */
export type Problem = z.infer<typeof ProblemSchema>;

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** Every code a ConnectorError or a search-dsl error carries; `Record` over the union keeps the map exhaustive. */
export const STATUS_OF_CODE: Readonly<Record<ErrorCode, number>> = {
  invalid_request: 400,
  invalid_params: 400,
  invalid_filter: 400,
  invalid_cursor: 400,
  query_too_costly: 400,
  unsupported_action: 400,
  unsupported_mode: 400,
  payload_too_large: 413,
  upstream_not_found: 404,
  upstream_error: 502,
  upstream_auth_failed: 502,
  rate_limited: 429,
};

/** The one place where errors become RFC 9457 problem+json. Anything unexpected is a 500 without details. */
export function toProblem(error: unknown): { problem: Problem; retryAfterSeconds?: number } {
  if (error instanceof ApiError) {
    return {
      problem: problemOf(error.status, error.code, error.message, error.errors),
      ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
    };
  }
  if (error instanceof ConnectorError) {
    // A permanent upstream 4xx (its 400, 409, 422: not auth, not found, not a rate limit) refused what the caller
    // asked for: a 400 the caller fixes. A transient failure stays a 502 the caller may try again.
    const rejected =
      error instanceof UpstreamError &&
      error.code === 'upstream_error' &&
      !isRetryable(error) &&
      isClientError(error.upstreamStatus);
    const status = rejected ? 400 : STATUS_OF_CODE[error.code];
    const code = rejected ? 'upstream_rejected' : error.code;
    const problem = problemOf(status, code, error.message, error.errors);
    if (error instanceof UpstreamError) problem.upstream = { status: error.upstreamStatus, body: error.upstreamBody };
    if (error instanceof UpstreamRateLimitError) return { problem, retryAfterSeconds: error.retryAfterSeconds };
    return { problem };
  }
  if (error instanceof QuotaExceededError) {
    // The quota, its limit and what is used, as members of the problem (RFC 9457 extension members).
    const problem = problemOf(error.status, error.code, error.message);
    problem.quota = { name: error.quota, limit: error.limit, used: error.used };
    return error.retryAfterSeconds === undefined
      ? { problem }
      : { problem, retryAfterSeconds: error.retryAfterSeconds };
  }
  if (isSearchQueryError(error)) {
    // search-dsl points into the search params; the request body holds them under /params.
    const errors = error.errors.map((e) => ({ ...e, path: `/params${e.path}` }));
    const detail = `${DETAIL_OF_SEARCH_CODE[error.code]}: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`;
    return { problem: problemOf(STATUS_OF_CODE[error.code], error.code, detail, errors) };
  }
  return { problem: problemOf(500, 'internal_error', 'an unexpected error occurred; it has been logged') };
}

const DETAIL_OF_SEARCH_CODE: Readonly<Record<SearchErrorCode, string>> = {
  invalid_filter: 'Invalid search',
  invalid_params: 'Invalid search',
  invalid_cursor: 'Invalid cursor',
  query_too_costly: 'Search too costly (see docs/search-cost.md)',
};

function isClientError(status: number | null): boolean {
  return status !== null && status >= 400 && status < 500 && status !== 429;
}

function problemOf(status: number, code: ApiErrorCode, detail: string, errors: readonly FieldProblem[] = []): Problem {
  return {
    type: `https://conduit.dev/problems/${code.replaceAll('_', '-')}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    code,
    ...(errors.length > 0 ? { errors: [...errors] } : {}),
  };
}

export function problemResponse(c: Context, error: unknown): Response {
  const { problem, retryAfterSeconds } = toProblem(error);
  const headers: Record<string, string> = { 'content-type': 'application/problem+json' };
  if (retryAfterSeconds !== undefined) headers['retry-after'] = String(retryAfterSeconds);
  return c.body(JSON.stringify(problem), problem.status as 400, headers);
}
