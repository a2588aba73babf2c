import { type Classify, defaultClassify, type ResponseClass } from './classify.ts';
import { ConnectorError, UpstreamError, UpstreamRateLimitError } from './errors.ts';
import { isRetryable } from './retry-decision.ts';
import { backoffDelayMs, DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.ts';

export type QueryValue = string | number | boolean | readonly (string | number)[] | null | undefined;

export interface UpstreamRequest {
  readonly method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** A path relative to the kind's base (`customers/abc`), or an absolute URL on the same origin (next-page links). */
  readonly path: string;
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly json?: unknown;
  readonly form?: Readonly<Record<string, string>>;
  readonly body?: RequestInit['body'];
  readonly signal?: AbortSignal;
  /** Statuses the caller handles itself (e.g. 404 on an optional lookup, 206 for ranges). */
  readonly acceptStatuses?: readonly number[];
  /**
   * Whether sending the request twice has the effect of sending it once. Default: true but for POST and PATCH.
   * A request that is not is re-sent only when the upstream surely did not act on it (a 429, a refused
   * connection, a refreshed token); after a timeout, a cut connection or a 5xx its failure goes to the caller.
   * A read sent as POST (a query body) and a create carrying its own id (Drive's generated ids) say true.
   */
  readonly idempotent?: boolean;
}

/** Supplies auth headers; may refresh once after a 401 (OAuth), and names the secrets to redact from errors. */
export interface AuthStrategy {
  headers(signal?: AbortSignal): Promise<Record<string, string>>;
  /** Query values every request carries (an API key sent in the query string). */
  query?(): Readonly<Record<string, string>>;
  refresh?(signal?: AbortSignal): Promise<boolean>;
  secrets(): string[];
}

export interface HttpClientOptions {
  readonly baseUrl: string;
  readonly auth: AuthStrategy;
  readonly timeoutMs?: number;
  readonly retry?: RetryPolicy;
  readonly fetch?: typeof fetch;
  readonly defaultHeaders?: Readonly<Record<string, string>>;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly onRetry?: (info: { attempt: number; status: number | null; waitMs: number }) => void;
  /** The kind's reading of error answers (vendor rate-limit bodies, 403s that are not about credentials). */
  readonly classify?: Classify;
  /** Observes every attempt's outcome (status, or null when the upstream was unreachable): metrics. */
  readonly onResponse?: (status: number | null) => void;
  /** The connector's upstream budget: every attempt waits for its slot; a rate limit pauses it for everyone. */
  readonly budget?: UpstreamBudgetGate;
}

/** One upstream budget per connector, shared by every process (the platform's UpstreamBudgets). */
export interface UpstreamBudgetGate {
  acquire(signal?: AbortSignal): Promise<void>;
  rateLimited(waitMs: number | null): Promise<void>;
}

const BODY_EXCERPT_LIMIT = 2048;

/** Joins a base URL and escaped path segments: `joinPath('customers', id)`. */
export function pathOf(...segments: readonly (string | number)[]): string {
  return segments
    .map((segment) => {
      const text = String(segment);
      // URL resolution applies dot segments even when escaped (%2E%2E): an id must never climb the path.
      if (text === '' || /^(\.|%2e){1,2}$/i.test(text)) {
        throw new ConnectorError('invalid_params', `'${text}' is not a valid identifier`, [
          { path: '/params', message: `an identifier cannot be empty, '.' or '..'` },
        ]);
      }
      return encodeURIComponent(text);
    })
    .join('/');
}

export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The one way connectors talk to an upstream: base-relative URLs (same-origin only), auth, timeouts,
 * retries with backoff and jitter on 429/5xx/network errors honouring Retry-After, and typed errors
 * whose body excerpts never contain a credential.
 */
export class UpstreamHttpClient {
  readonly #options: HttpClientOptions;
  readonly #base: URL;
  readonly #retry: RetryPolicy;

  constructor(options: HttpClientOptions) {
    this.#options = options;
    this.#base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    this.#retry = options.retry ?? DEFAULT_RETRY_POLICY;
  }

  get baseUrl(): string {
    return this.#base.toString();
  }

  url(path: string, query?: Readonly<Record<string, QueryValue>>): URL {
    const url = /^https?:\/\//.test(path) ? new URL(path) : new URL(path.replace(/^\//, ''), this.#base);
    if (url.origin !== this.#base.origin) {
      throw new UpstreamError(
        'upstream_error',
        `refusing to follow a URL off the upstream origin: ${url.origin}`,
        null,
        null,
      );
    }
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      if (Array.isArray(value)) for (const v of value) url.searchParams.append(key, String(v));
      else url.searchParams.set(key, String(value));
    }
    return url;
  }

  /** Sends a request and returns the response (body unread) once it is a success or an accepted status. */
  async send(request: UpstreamRequest): Promise<Response> {
    const authQuery = this.#options.auth.query?.();
    const url = this.url(request.path, authQuery ? { ...request.query, ...authQuery } : request.query);
    const doFetch = this.#options.fetch ?? fetch;
    const sleep = this.#options.sleep ?? defaultSleep;
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      // Auth errors (a refused token endpoint) are not network failures: they propagate as they are.
      const headers = await this.#headers(request);
      await this.#options.budget?.acquire(request.signal);
      // The timeout covers waiting for the response head; a streamed body may take as long as it takes.
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(new Error('upstream timeout')), this.#options.timeoutMs ?? 30_000);
      const signals = [timeout.signal];
      if (request.signal) signals.push(request.signal);
      let response: Response;
      try {
        response = await doFetch(url, {
          method: request.method ?? 'GET',
          headers,
          body: this.#body(request),
          signal: AbortSignal.any(signals),
        });
      } catch (error) {
        clearTimeout(timer);
        // A fetch that refuses the call itself (a defined kind's egress guard) has decided: nothing was sent.
        if (error instanceof ConnectorError) throw error;
        this.#options.onResponse?.(null);
        if (request.signal?.aborted) throw error;
        // Unreachable, timed out or cut: transient. Only a refused connection surely never reached the upstream.
        const failure = new UpstreamError('upstream_error', `upstream unreachable: ${describe(error)}`, null, null, {
          retryable: true,
        });
        const resend = isRetryable(failure) && (resendable(request) || connectionRefused(error));
        if (!resend || attempt + 1 >= this.#retry.maxAttempts) throw failure;
        const waitMs = backoffDelayMs(this.#retry, attempt);
        this.#options.onRetry?.({ attempt, status: null, waitMs });
        await sleep(waitMs, request.signal);
        continue;
      }
      clearTimeout(timer);
      this.#options.onResponse?.(response.status);

      if (response.ok || request.acceptStatuses?.includes(response.status)) return response;

      const excerpt = this.excerpt(await response.text().catch(() => ''));
      const verdict: ResponseClass = this.#options.classify?.(response, excerpt) ?? defaultClassify(response);
      if (verdict.type === 'auth') {
        if (response.status === 401 && !refreshed && this.#options.auth.refresh) {
          refreshed = true;
          if (await this.#options.auth.refresh(request.signal)) {
            attempt--;
            continue;
          }
          throw new UpstreamError(
            'upstream_auth_failed',
            'the upstream rejected the stored credentials (401) and a refresh failed',
            401,
            null,
          );
        }
        throw this.#error(response.status, excerpt, 'upstream_auth_failed');
      }
      // The verdict travels on the error; whether to try again is read from it, as every other caller does.
      const failure =
        verdict.type === 'permanent'
          ? (verdict.error ?? this.#error(response.status, excerpt, undefined, false))
          : new UpstreamError('upstream_error', `the upstream answered ${response.status}`, response.status, excerpt, {
              retryable: true,
            });
      if (!isRetryable(failure)) throw failure;

      const asked = 'waitMs' in verdict ? (verdict.waitMs ?? null) : null;
      // The whole connector waits, in every process, not only this request.
      if (verdict.type === 'rate_limited') await this.#options.budget?.rateLimited(asked);
      const waitMs = asked ?? backoffDelayMs(this.#retry, attempt);
      const exhausted = attempt + 1 >= this.#retry.maxAttempts;
      if (verdict.type === 'rate_limited' && (exhausted || waitMs > this.#retry.maxWaitMs)) {
        throw new UpstreamRateLimitError('the upstream rate limit was reached', Math.max(1, Math.ceil(waitMs / 1000)));
      }
      // A 429 was refused before any work; any other failure of a non-idempotent write may have been applied.
      if (exhausted || !(verdict.type === 'rate_limited' || resendable(request))) throw failure;
      this.#options.onRetry?.({ attempt, status: response.status, waitMs });
      await sleep(Math.min(waitMs, this.#retry.maxWaitMs), request.signal);
    }
  }

  async json<T = unknown>(request: UpstreamRequest): Promise<T> {
    return this.readJson<T>(await this.send(request));
  }

  /** Reads a JSON body (kinds that send() themselves use this too); an empty body is `undefined`. */
  async readJson<T = unknown>(response: Response): Promise<T> {
    const text = await response.text();
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new UpstreamError(
        'upstream_error',
        'the upstream answered with invalid JSON',
        response.status,
        this.excerpt(text),
      );
    }
  }

  async #headers(request: UpstreamRequest): Promise<Headers> {
    const headers = new Headers({ accept: 'application/json', ...this.#options.defaultHeaders, ...request.headers });
    for (const [k, v] of Object.entries(await this.#options.auth.headers(request.signal))) headers.set(k, v);
    if (request.json !== undefined) headers.set('content-type', 'application/json');
    if (request.form) headers.set('content-type', 'application/x-www-form-urlencoded');
    return headers;
  }

  #body(request: UpstreamRequest): RequestInit['body'] | undefined {
    if (request.json !== undefined) return JSON.stringify(request.json);
    if (request.form) return new URLSearchParams(request.form as Record<string, string>).toString();
    return request.body;
  }

  /**
   * The default error for an upstream status; `code` forces a class (a vendor's 4xx that is about credentials).
   * `retryable: false` is the kind's verdict on a permanent answer.
   */
  #error(status: number, excerpt: string, code?: 'upstream_auth_failed', retryable?: false): UpstreamError {
    const verdict = retryable === undefined ? {} : { retryable };
    if (code === 'upstream_auth_failed' || status === 401 || status === 403) {
      return new UpstreamError(
        'upstream_auth_failed',
        `the upstream rejected the stored credentials (${status})`,
        status,
        excerpt,
      );
    }
    if (status === 404)
      return new UpstreamError('upstream_not_found', 'the upstream has no such resource', status, excerpt, verdict);
    return new UpstreamError('upstream_error', `the upstream answered ${status}`, status, excerpt, verdict);
  }

  /** A bounded excerpt of an upstream body with every credential of this connector redacted. */
  excerpt(text: string): string {
    let out = text.length > BODY_EXCERPT_LIMIT ? `${text.slice(0, BODY_EXCERPT_LIMIT)}…` : text;
    for (const secret of this.#options.auth.secrets()) {
      if (secret.length >= 4) out = out.replaceAll(secret, '[REDACTED]');
    }
    return out;
  }
}

function resendable(request: UpstreamRequest): boolean {
  return request.idempotent ?? !(request.method === 'POST' || request.method === 'PATCH');
}

/** The connection was refused: nothing was sent, so even a write may be sent again. */
function connectionRefused(error: unknown): boolean {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return cause?.code === 'ECONNREFUSED';
}

function describe(error: unknown): string {
  if (error instanceof Error)
    return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
  return String(error);
}
