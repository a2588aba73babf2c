import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';

export interface AccessTokenClaims {
  readonly clientId: string;
  readonly organizationIds: readonly string[];
}

const ISSUER = 'conduit';
const AUDIENCE = 'conduit-api';

/** Short-lived HS256 bearer tokens for API clients (client-credentials grant). */
export class AccessTokens {
  readonly #key: Uint8Array;
  readonly #ttlSeconds: number;

  constructor(signingKey: string, ttlSeconds: number) {
    this.#key = new TextEncoder().encode(signingKey);
    this.#ttlSeconds = ttlSeconds;
  }

  get ttlSeconds(): number {
    return this.#ttlSeconds;
  }

  async issue(claims: AccessTokenClaims): Promise<string> {
    return new SignJWT({ orgs: [...claims.organizationIds] })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.clientId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${this.#ttlSeconds}s`)
      .sign(this.#key);
  }

  /** The claims of a valid token, or a reason it is not valid ('expired' | 'invalid'). */
  async verify(token: string): Promise<AccessTokenClaims | 'expired' | 'invalid'> {
    try {
      const { payload } = await jwtVerify(token, this.#key, {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['HS256'],
      });
      const orgs = payload.orgs;
      if (typeof payload.sub !== 'string' || !Array.isArray(orgs) || !orgs.every((o) => typeof o === 'string'))
        return 'invalid';
      return { clientId: payload.sub, organizationIds: orgs };
    } catch (error) {
      return error instanceof joseErrors.JWTExpired ? 'expired' : 'invalid';
    }
  }
}
