import { createHash, randomBytes } from 'node:crypto';
import { connectorSettingsShape } from '@conduit/connectors';
import type { RedisClient } from '@conduit/queues';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';

const ISSUER = 'conduit';
/** Distinct from the bearer tokens' audience: neither can stand in for the other. */
const AUDIENCE = 'conduit-oauth-state';

/** What the consent flow carries from initiate to callback, inside the signed `state`. */
export const OAuthStatePayload = z.object({
  organization_id: z.string(),
  client_id: z.string(),
  redirect_url: z.string(),
  /** The connector the callback creates. */
  ...connectorSettingsShape,
  /** A PKCE code_verifier waits in Redis under the state's jti (never in the URL). */
  pkce: z.boolean(),
});
export type OAuthStatePayload = z.infer<typeof OAuthStatePayload>;

const StateClaims = OAuthStatePayload.extend({ jti: z.string().min(16) });
export type OAuthStateClaims = z.infer<typeof StateClaims>;

export type VerifiedState =
  | { readonly status: 'valid'; readonly claims: OAuthStateClaims }
  /** Authentic but past its lifetime: its redirect_url may still receive the error. */
  | { readonly status: 'expired'; readonly claims: OAuthStateClaims }
  | { readonly status: 'invalid' };

export type ConsumedState =
  | { readonly status: 'ok'; readonly codeVerifier: string | undefined }
  | { readonly status: 'replayed' }
  | { readonly status: 'verifier_missing' };

export interface OAuthStatesOptions {
  /** The derived OAuth-state key (signingKeysFrom(env).oauthState); a string is used as it is. */
  readonly signingKey: Uint8Array | string;
  readonly redis: RedisClient;
  /** Redis key prefix (namespace). */
  readonly prefix: string;
  readonly ttlSeconds: number;
  readonly now: () => Date;
}

/** PKCE S256 (RFC 7636 §4.2): BASE64URL(SHA256(verifier)). */
export function codeChallengeOf(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/**
 * Signed (HS256 with the OAuth-state key derived from TOKEN_SIGNING_KEY), expiring, single-use consent states. Single use is a Redis
 * `SET NX` of the jti, kept as long as the state could still verify; the PKCE verifier is stored beside it.
 */
export class OAuthStates {
  readonly #key: Uint8Array;
  readonly #options: OAuthStatesOptions;

  constructor(options: OAuthStatesOptions) {
    if (options.ttlSeconds < 1) throw new Error('OAuthStates: ttlSeconds must be at least 1');
    this.#key =
      typeof options.signingKey === 'string' ? new TextEncoder().encode(options.signingKey) : options.signingKey;
    this.#options = options;
  }

  /** Signs a state; with PKCE, also creates and stores the code verifier and returns its S256 challenge. */
  async issue(payload: OAuthStatePayload): Promise<{ state: string; expiresAt: Date; codeChallenge?: string }> {
    const { redis, ttlSeconds, now } = this.#options;
    const jti = randomBytes(18).toString('base64url');
    const issuedAt = Math.floor(now().getTime() / 1000);
    const expiresAt = new Date((issuedAt + ttlSeconds) * 1000);
    let codeChallenge: string | undefined;
    if (payload.pkce) {
      const verifier = randomBytes(32).toString('base64url');
      await redis.set(this.#verifierKey(jti), verifier, 'EX', ttlSeconds);
      codeChallenge = codeChallengeOf(verifier);
    }
    const state = await new SignJWT({ ...OAuthStatePayload.parse(payload) })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setJti(jti)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + ttlSeconds)
      .sign(this.#key);
    return { state, expiresAt, ...(codeChallenge ? { codeChallenge } : {}) };
  }

  /** Checks signature, issuer, audience and expiry; does not consume the state. */
  async verify(state: string): Promise<VerifiedState> {
    if (state.length === 0 || state.length > 8192) return { status: 'invalid' };
    try {
      const { payload } = await jwtVerify(state, this.#key, {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['HS256'],
        currentDate: this.#options.now(),
      });
      const claims = StateClaims.safeParse(payload);
      return claims.success ? { status: 'valid', claims: claims.data } : { status: 'invalid' };
    } catch (error) {
      // jose only reports expiry after the signature checked out, so the payload is ours.
      if (error instanceof joseErrors.JWTExpired) {
        const claims = StateClaims.safeParse(error.payload);
        if (claims.success) return { status: 'expired', claims: claims.data };
      }
      return { status: 'invalid' };
    }
  }

  /** Marks the state used (first caller wins) and takes its PKCE verifier. */
  async consume(claims: OAuthStateClaims): Promise<ConsumedState> {
    const { redis, ttlSeconds } = this.#options;
    const first = await redis.set(this.#usedKey(claims.jti), '1', 'EX', ttlSeconds, 'NX');
    if (first !== 'OK') return { status: 'replayed' };
    if (!claims.pkce) return { status: 'ok', codeVerifier: undefined };
    const verifier = await redis.getdel(this.#verifierKey(claims.jti));
    return verifier ? { status: 'ok', codeVerifier: verifier } : { status: 'verifier_missing' };
  }

  #usedKey(jti: string): string {
    return `${this.#options.prefix}:state-used:${jti}`;
  }

  #verifierKey(jti: string): string {
    return `${this.#options.prefix}:pkce-verifier:${jti}`;
  }
}
