import { AnswerMemory } from './answer-memory.ts';
import { problemFrom } from './problem.ts';

export type FetchLike = (input: Request) => Promise<Response>;

export interface ConduitOptions {
  /** The API's origin, e.g. `https://conduit.example.com` (paths are added). */
  baseUrl: string;
  /** API client credentials (client-credentials grant); the token is obtained and refreshed as needed. */
  clientId?: string;
  clientSecret?: string;
  /** Or a bearer token you already hold (then nothing is refreshed). */
  accessToken?: string;
  /** For a client that belongs to several organizations (`X-Organization-Id`). */
  organizationId?: string;
  /** Retries of safe calls answered 429 or 503 (default 3). */
  maxRetries?: number;
  /** The longest wait the client accepts before a retry, in seconds (default 60); longer waits throw at once. */
  maxRetryAfterSeconds?: number;
  /** A fetch implementation (default: the global one). */
  fetch?: FetchLike;
}

export interface RequestOptions {
  body?: unknown;
  /** Safe to repeat (reads): only these are retried on 429/503. */
  safe: boolean;
  signal?: AbortSignal;
  /** Headers beside the bearer token (an event stream's Accept and Last-Event-ID). */
  headers?: Readonly<Record<string, string>>;
}

const REFRESH_MARGIN_MS = 30_000;

/** Bearer tokens, JSON requests, problem details as ConduitProblem, retries of safe calls honouring Retry-After. */
export class Transport {
  readonly #options: ConduitOptions;
  readonly #fetch: FetchLike;
  #token: { value: string; expiresAt: number } | undefined;
  #pending: Promise<string> | undefined;
  readonly #answers = new AnswerMemory();

  constructor(options: ConduitOptions) {
    if (!options.accessToken && !(options.clientId && options.clientSecret)) {
      throw new TypeError('Conduit needs clientId and clientSecret, or an accessToken');
    }
    this.#options = options;
    this.#fetch = options.fetch ?? ((request) => fetch(request));
  }

  /** A response with a 2xx status; anything else throws ConduitProblem. */
  async request(method: string, path: string, options: RequestOptions): Promise<Response> {
    const maxRetries = this.#options.maxRetries ?? 3;
    const maxWait = this.#options.maxRetryAfterSeconds ?? 60;
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      const response = await this.#send(method, path, options);
      if (response.ok) return response;
      // Asked with If-None-Match: the caller holds the answer.
      if (response.status === 304 && options.headers?.['if-none-match'] !== undefined) return response;
      // An expired or revoked token: nothing ran, so any call may be repeated once with a fresh token.
      if (response.status === 401 && !refreshed && !this.#options.accessToken) {
        await response.body?.cancel();
        this.#token = undefined;
        refreshed = true;
        attempt--;
        continue;
      }
      const problem = await problemFrom(response);
      const retryable = options.safe && (response.status === 429 || response.status === 503);
      if (!retryable || attempt >= maxRetries) throw problem;
      const waitSeconds = problem.retryAfterSeconds ?? 0.25 * 2 ** attempt;
      if (waitSeconds > maxWait) throw problem;
      await sleep(waitSeconds * 1000, options.signal);
    }
  }

  async json<T>(method: string, path: string, options: RequestOptions): Promise<T> {
    const response = await this.request(method, path, options);
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  /**
   * A search or SQL answer: the same question asked again carries the ETag of its last answer, and a 304 gives that
   * answer back without its body being sent again (docs/api.md, "Answers from memory").
   */
  async answer<T>(method: string, path: string, options: RequestOptions): Promise<T> {
    const question = `${method} ${path} ${JSON.stringify(options.body)}`;
    const etag = this.#answers.etagOf(question);
    const headers = etag === undefined ? options.headers : { ...options.headers, 'if-none-match': etag };
    const response = await this.request(method, path, headers ? { ...options, headers } : options);
    if (response.status === 304) {
      await response.body?.cancel();
      const kept = this.#answers.recall(question);
      if (kept !== undefined) return kept as T;
      return this.json(method, path, options);
    }
    const text = await response.text();
    this.#answers.remember(question, response.headers.get('etag'), text);
    return JSON.parse(text) as T;
  }

  async #send(method: string, path: string, options: RequestOptions): Promise<Response> {
    const headers = new Headers({
      accept: 'application/json',
      ...options.headers,
      authorization: `Bearer ${await this.token()}`,
    });
    if (this.#options.organizationId) headers.set('x-organization-id', this.#options.organizationId);
    if (options.body !== undefined) headers.set('content-type', 'application/json');
    const init: RequestInit = { method, headers };
    if (options.body !== undefined) init.body = JSON.stringify(options.body);
    if (options.signal) init.signal = options.signal;
    return this.#fetch(new Request(new URL(path, this.#options.baseUrl), init));
  }

  /** The current bearer token, obtained (once, however many calls wait for it) when missing or about to expire. */
  async token(): Promise<string> {
    if (this.#options.accessToken) return this.#options.accessToken;
    if (this.#token && this.#token.expiresAt - REFRESH_MARGIN_MS > Date.now()) return this.#token.value;
    this.#pending ??= this.#obtainToken().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  async #obtainToken(): Promise<string> {
    const response = await this.#fetch(
      new Request(new URL('/api/v1/oauth/token', this.#options.baseUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          grant_type: 'client_credentials',
          client_id: this.#options.clientId,
          client_secret: this.#options.clientSecret,
        }),
      }),
    );
    if (!response.ok) throw await problemFrom(response);
    const body = (await response.json()) as { access_token: string; expires_in: number };
    this.#token = { value: body.access_token, expiresAt: Date.now() + body.expires_in * 1000 };
    return body.access_token;
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
