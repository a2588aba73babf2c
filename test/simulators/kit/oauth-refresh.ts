import { randomUUID } from 'node:crypto';
import type { Handler } from 'hono';
import { RefreshTokenMint } from './token-mint.ts';

/** The vendor's `error_description` for a wrong client id/secret and for a refresh token it does not honour. */
export interface RefreshGrantErrors {
  readonly invalidClient: string;
  readonly invalidGrant: string;
}

/**
 * A token endpoint that answers the refresh_token grant (RFC 6749 §6, client credentials in the form body, §2.3.1):
 * `unsupported_grant_type` (400) for any other grant, `invalid_client` (401), then `invalid_grant` (400) when
 * `redeem` does not honour the presented refresh token; otherwise `redeem`'s token response.
 * `client` is read on every request.
 */
export function refreshTokenGrant(
  client: { readonly clientId: string; readonly clientSecret: string },
  errors: RefreshGrantErrors,
  redeem: (refreshToken: string) => Record<string, unknown> | undefined,
): Handler {
  return async (c) => {
    const form = new URLSearchParams(await c.req.text());
    if (form.get('grant_type') !== 'refresh_token') return c.json({ error: 'unsupported_grant_type' }, 400);
    if (form.get('client_id') !== client.clientId || form.get('client_secret') !== client.clientSecret) {
      return c.json({ error: 'invalid_client', error_description: errors.invalidClient }, 401);
    }
    const issued = redeem(form.get('refresh_token') ?? '');
    if (!issued) return c.json({ error: 'invalid_grant', error_description: errors.invalidGrant }, 400);
    return c.json(issued);
  };
}

/** The options of a simulator whose OAuth tokens rotate. */
export interface RotatingTokenOptions {
  /** Lifetime of the access tokens the token endpoint issues; short in tests so that refresh is exercised. */
  accessTokenTtlMs?: number;
  /** Refresh tokens of an earlier run with this secret stay valid (the local profile across restarts). */
  tokenSecret?: string | undefined;
  /** How long a rotated-out refresh token is still honoured (other connector copies may hold it). */
  refreshGraceMs?: number;
}

/** The OAuth client a simulator with rotating tokens accepts, and what tests read of its token endpoint. */
export interface RotatingTokenClient {
  readonly clientId: string;
  readonly clientSecret: string;
  /** The refresh token handed out first (as credentials), and an access token that has already expired. */
  readonly initialRefreshToken: string;
  readonly expiredAccessToken: string;
  /** Refresh calls honoured, for tests. */
  readonly refreshes: { refresh_token: string; at: number }[];
}

/** How a vendor's tokens look and last. */
export interface TokenStyle {
  /** Access token lifetime when the options set none. */
  readonly defaultTtlMs: number;
  readonly accessTokenPrefix: string;
  readonly refreshTokenPrefix: string;
  /** Access tokens valid for the simulator's lifetime. */
  readonly permanentAccessTokens?: readonly string[];
}

/** A new token pair issued for a refresh, and the access token's lifetime in seconds. */
export interface IssuedTokens {
  readonly accessToken: string;
  readonly refreshToken: string;
  readonly expiresIn: number;
}

/**
 * Access tokens that expire and refresh tokens that rotate, as Google's and Snap's OAuth servers keep them: each
 * refresh issues a new pair, and the refresh tokens current until then stay valid for the grace period.
 */
export class RotatingTokens {
  readonly #client: RotatingTokenClient;
  readonly #style: TokenStyle;
  readonly #ttlMs: number;
  readonly #graceMs: number;
  readonly #mint: RefreshTokenMint;
  /** access token → time it expires. */
  readonly #access = new Map<string, number>();
  /** refresh token → time it stops being valid (Infinity while it is the current one). */
  readonly #refresh = new Map<string, number>();

  constructor(client: RotatingTokenClient, options: RotatingTokenOptions, style: TokenStyle) {
    this.#client = client;
    this.#style = style;
    this.#ttlMs = options.accessTokenTtlMs ?? style.defaultTtlMs;
    this.#graceMs = options.refreshGraceMs ?? 300_000;
    this.#mint = new RefreshTokenMint(options.tokenSecret);
    for (const token of style.permanentAccessTokens ?? []) this.#access.set(token, Number.POSITIVE_INFINITY);
    this.#access.set(client.expiredAccessToken, 0);
    this.#refresh.set(client.initialRefreshToken, Number.POSITIVE_INFINITY);
  }

  /** True for an access token issued here (or valid from the start) that has not expired. */
  accepts(accessToken: string | undefined): boolean {
    const expiresAt = accessToken === undefined ? undefined : this.#access.get(accessToken);
    return expiresAt !== undefined && expiresAt >= Date.now();
  }

  /**
   * The token endpoint: the refresh_token grant for the client, answering `response(issued)` (the vendor's token
   * response) when the presented refresh token is valid.
   */
  grant(errors: RefreshGrantErrors, response: (issued: IssuedTokens) => Record<string, unknown>): Handler {
    return refreshTokenGrant(this.#client, errors, (presented) => {
      const issued = this.redeem(presented);
      return issued && response(issued);
    });
  }

  /** A new access and refresh token for a valid `presented` refresh token; undefined when it is not valid. */
  redeem(presented: string): IssuedTokens | undefined {
    // A token this run never saw, issued by an earlier run of the local profile, is still the current one.
    const validUntil =
      this.#refresh.get(presented) ?? (this.#mint.issuedWithSecret(presented) ? Number.POSITIVE_INFINITY : undefined);
    if (validUntil === undefined || validUntil < Date.now()) return undefined;
    this.#client.refreshes.push({ refresh_token: presented, at: Date.now() });
    const accessToken = `${this.#style.accessTokenPrefix}${randomUUID()}`;
    const refreshToken = this.#mint.issue(this.#style.refreshTokenPrefix);
    this.#access.set(accessToken, Date.now() + this.#ttlMs);
    for (const [token, until] of this.#refresh)
      if (until === Number.POSITIVE_INFINITY) this.#refresh.set(token, Date.now() + this.#graceMs);
    this.#refresh.set(refreshToken, Number.POSITIVE_INFINITY);
    return { accessToken, refreshToken, expiresIn: Math.round(this.#ttlMs / 1000) };
  }
}
