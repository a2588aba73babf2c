import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';

export interface AccessTokenClaims {
  readonly clientId: string;
  readonly organizationIds: readonly string[];
  /** The client's token generation when issued; the API refuses the token once the client's has moved on. */
  readonly generation: number;
}

const ISSUER = 'conduit';
const AUDIENCE = 'conduit-api';
/** Verified tokens remembered per process; past this many the memory starts over (a client keeps one token). */
const VERIFIED_CAPACITY = 10_000;

interface Verified {
  readonly claims: AccessTokenClaims;
  readonly expiresAtMs: number;
}

/** Short-lived HS256 bearer tokens for API clients (client-credentials grant). */
export class AccessTokens {
  readonly #key: Uint8Array;
  readonly #ttlSeconds: number;
  readonly #verified = new Map<string, Verified>();

  /** `signingKey`: the derived access-token key (signingKeysFrom(env).accessToken); a string is used as it is. */
  constructor(signingKey: Uint8Array | string, ttlSeconds: number) {
    this.#key = typeof signingKey === 'string' ? new TextEncoder().encode(signingKey) : signingKey;
    this.#ttlSeconds = ttlSeconds;
  }

  get ttlSeconds(): number {
    return this.#ttlSeconds;
  }

  async issue(claims: AccessTokenClaims): Promise<string> {
    return new SignJWT({ orgs: [...claims.organizationIds], gen: claims.generation })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.clientId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${this.#ttlSeconds}s`)
      .sign(this.#key);
  }

  /**
   * The claims of a valid token, or a reason it is not valid ('expired' | 'invalid'). A token's signature and
   * claims never change, so a verified token is remembered (by its exact text) until it expires: callers send
   * the same token on every request, and the HMAC check through WebCrypto was a tenth of a search's CPU.
   */
  async verify(token: string): Promise<AccessTokenClaims | 'expired' | 'invalid'> {
    const known = this.#verified.get(token);
    if (known) {
      if (Date.now() < known.expiresAtMs) return known.claims;
      this.#verified.delete(token);
      return 'expired';
    }
    const result = await this.#verifySignature(token);
    if (typeof result === 'string') return result;
    if (this.#verified.size >= VERIFIED_CAPACITY) this.#verified.clear();
    this.#verified.set(token, { claims: result.claims, expiresAtMs: result.expiresAtMs });
    return result.claims;
  }

  async #verifySignature(
    token: string,
  ): Promise<{ claims: AccessTokenClaims; expiresAtMs: number } | 'expired' | 'invalid'> {
    try {
      const { payload } = await jwtVerify(token, this.#key, {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['HS256'],
      });
      const { orgs, gen } = payload;
      if (typeof payload.sub !== 'string' || !Array.isArray(orgs) || !orgs.every((o) => typeof o === 'string'))
        return 'invalid';
      // issue() always sets exp and gen; a token without them is not ours (or predates revocation).
      if (typeof payload.exp !== 'number' || !Number.isSafeInteger(gen)) return 'invalid';
      return {
        claims: { clientId: payload.sub, organizationIds: orgs, generation: gen as number },
        expiresAtMs: payload.exp * 1000,
      };
    } catch (error) {
      return error instanceof joseErrors.JWTExpired ? 'expired' : 'invalid';
    }
  }
}
