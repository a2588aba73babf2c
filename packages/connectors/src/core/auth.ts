import { createHash } from 'node:crypto';
import type { AuthSpec } from './catalog.ts';
import { UpstreamError } from './errors.ts';
import type { AuthStrategy } from './http-client.ts';
import { requestTokens, type TokenClientAuth } from './token-endpoint.ts';
import { fillUrlOrThrow } from './url-template.ts';

export function noAuth(): AuthStrategy {
  return { headers: async () => ({}), secrets: () => [] };
}

export function bearerAuth(token: string): AuthStrategy {
  return { headers: async () => ({ authorization: `Bearer ${token}` }), secrets: () => [token] };
}

/** An API key in a header (`X-Api-Key: <key>`) or in the query string (`?api_key=<key>`). */
export function apiKeyAuth(where: 'header' | 'query', name: string, value: string): AuthStrategy {
  if (where === 'query') return { headers: async () => ({}), query: () => ({ [name]: value }), secrets: () => [value] };
  return { headers: async () => ({ [name]: value }), secrets: () => [value] };
}

export function basicAuth(username: string, password: string): AuthStrategy {
  const encoded = Buffer.from(`${username}:${password}`).toString('base64');
  return { headers: async () => ({ authorization: `Basic ${encoded}` }), secrets: () => [password, encoded] };
}

export interface OAuthTokens {
  access_token?: string | undefined;
  refresh_token?: string | undefined;
}

export interface OAuthRefreshOptions {
  readonly tokenUrl: string;
  readonly clientId?: string | undefined;
  readonly clientSecret?: string | undefined;
  readonly tokens: OAuthTokens;
  /** Called with the new tokens after a refresh, so rotating refresh tokens are written back to the connector. */
  readonly onRotate?: (tokens: { access_token: string; refresh_token?: string }) => Promise<void> | void;
  readonly fetch?: typeof fetch;
  /** How the client authenticates at the token endpoint (the kind's catalog `auth.clientAuth`). */
  readonly clientAuth: TokenClientAuth;
}

/**
 * Bearer access token that refreshes itself after a 401 (or up front when it has none) with
 * grant_type=refresh_token. One refresh at a time: concurrent 401s share the same refresh, which runs under its
 * own timeout, not under the signal of whichever request started it: a caller that hangs up stops waiting for
 * it, and the others still get its result.
 */
export function oauthRefreshAuth(options: OAuthRefreshOptions): AuthStrategy {
  let accessToken = options.tokens.access_token;
  let refreshToken = options.tokens.refresh_token;

  const refresh = async (): Promise<boolean> => {
    if (!refreshToken || !options.clientId) return false;
    const tokens = await requestTokens({
      tokenUrl: options.tokenUrl,
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      clientAuth: options.clientAuth,
      grant: { type: 'refresh_token', refreshToken },
      fetch: options.fetch,
    });
    accessToken = tokens.access_token;
    if (tokens.refresh_token) refreshToken = tokens.refresh_token;
    await options.onRotate?.({ access_token: accessToken, ...(refreshToken ? { refresh_token: refreshToken } : {}) });
    return true;
  };

  const sharedRefresh = singleFlight(refresh);

  return {
    async headers(signal) {
      if (!accessToken && !(await sharedRefresh(signal))) {
        throw new UpstreamError('upstream_auth_failed', 'no access token and no way to refresh one', 401, null);
      }
      return { authorization: `Bearer ${accessToken}` };
    },
    refresh: sharedRefresh,
    secrets: () => [accessToken, refreshToken, options.clientSecret].filter((s): s is string => Boolean(s)),
  };
}

/**
 * One run of `task` at a time: callers that come while it runs share it. The run is bound to no caller's signal:
 * a caller that aborts stops waiting, and the others still get its result.
 */
function singleFlight<T>(task: () => Promise<T>): (signal?: AbortSignal) => Promise<T> {
  let inFlight: Promise<T> | null = null;
  return (signal) => {
    inFlight ??= task().finally(() => {
      inFlight = null;
    });
    return untilAborted(inFlight, signal);
  };
}

/** Waits for a shared promise on behalf of one caller: its abort rejects only its own wait. */
function untilAborted<T>(shared: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return shared;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    shared.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Cache of client-credentials tokens, owned by the runtime (not a module singleton). */
export class TokenCache {
  readonly #entries = new Map<string, { token: string; expiresAt: number }>();
  get(key: string, now = Date.now()): string | undefined {
    const entry = this.#entries.get(key);
    return entry && entry.expiresAt > now ? entry.token : undefined;
  }
  set(key: string, token: string, expiresInSeconds: number, now = Date.now()): void {
    // Renew a minute early so a token never expires mid-request.
    this.#entries.set(key, { token, expiresAt: now + Math.max(0, expiresInSeconds - 60) * 1000 });
  }
  delete(key: string): void {
    this.#entries.delete(key);
  }
}

export interface ClientCredentialsOptions {
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** How the client authenticates at the token endpoint (the kind's catalog `auth.clientAuth`). */
  readonly clientAuth: TokenClientAuth;
  readonly accessToken?: string | undefined;
  readonly cache: TokenCache;
  readonly fetch?: typeof fetch;
}

/** OAuth2 client-credentials (PayPal); the token is cached until expiry. */
export function clientCredentialsAuth(options: ClientCredentialsOptions): AuthStrategy {
  // The secret is part of the key: another connector with the same client id but a wrong secret must not
  // borrow a token that the right secret obtained.
  const key = `${options.tokenUrl}|${options.clientId}|${createHash('sha256').update(options.clientSecret).digest('hex')}`;
  let supplied = options.accessToken;

  const requestToken = async (): Promise<string> => {
    const tokens = await requestTokens({
      tokenUrl: options.tokenUrl,
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      clientAuth: options.clientAuth,
      grant: { type: 'client_credentials' },
      fetch: options.fetch,
    });
    options.cache.set(key, tokens.access_token, tokens.expires_in ?? 3600);
    return tokens.access_token;
  };
  // Shared like the refresh above: one token request at a time, not bound to the first caller's signal.
  const fetchToken = singleFlight(requestToken);

  return {
    async headers(signal) {
      const token = supplied ?? options.cache.get(key) ?? (await fetchToken(signal));
      return { authorization: `Bearer ${token}` };
    },
    async refresh(signal) {
      supplied = undefined;
      options.cache.delete(key);
      await fetchToken(signal);
      return true;
    },
    secrets: () => [options.clientSecret, supplied, options.cache.get(key)].filter((s): s is string => Boolean(s)),
  };
}

/** The OAuth credential fields a refreshing connector stores. */
export interface OAuthCredentials {
  readonly client_id?: string | undefined;
  readonly client_secret?: string | undefined;
  readonly access_token?: string | undefined;
  readonly refresh_token?: string | undefined;
}

/**
 * The usual OAuth set-up of a kind: refresh at the catalog's token endpoint (or CONNECTOR_TOKEN_URL_<KIND>), its
 * `{subdomain}` filled from the config, with the catalog's client auth; rotated tokens go back to the host, merged
 * into the stored credentials.
 */
export function credentialsOAuth(
  credentials: OAuthCredentials,
  settings: {
    tokenUrl?: string | undefined;
    fetch?: typeof fetch;
    onCredentialsRotated?: (c: Record<string, unknown>) => Promise<void> | void;
  },
  auth: AuthSpec,
  config: unknown = {},
): AuthStrategy {
  return oauthRefreshAuth({
    tokenUrl: fillUrlOrThrow(settings.tokenUrl ?? auth.tokenUrl, config),
    clientId: credentials.client_id,
    clientSecret: credentials.client_secret,
    tokens: { access_token: credentials.access_token, refresh_token: credentials.refresh_token },
    clientAuth: auth.clientAuth,
    ...(settings.fetch ? { fetch: settings.fetch } : {}),
    onRotate: (tokens) => settings.onCredentialsRotated?.({ ...credentials, ...tokens }),
  });
}
