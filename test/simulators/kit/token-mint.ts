import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';

/**
 * Refresh tokens that outlive the simulator process. A simulator keeps its tokens in memory, so after a restart
 * of the local profile (`./dev start` again) the rotated refresh token a demo connector stored yesterday would be
 * unknown and its syncs would fail with invalid_grant. With a `secret` (the local profile keeps one in
 * .data/simulator-secret), issued tokens carry an HMAC of it, and a token this process never saw is honoured when
 * its HMAC checks out: it was issued by an earlier run. Without a secret (tests), only this run's tokens count.
 */
export class RefreshTokenMint {
  readonly #secret: string | undefined;

  constructor(secret: string | undefined) {
    this.#secret = secret || undefined;
  }

  issue(prefix: string): string {
    const token = `${prefix}${randomUUID()}`;
    return this.#secret ? `${token}.${this.#mac(token)}` : token;
  }

  /** True for a token issued with the same secret, by this run or an earlier one. */
  issuedWithSecret(token: string): boolean {
    if (!this.#secret) return false;
    const dot = token.lastIndexOf('.');
    if (dot <= 0) return false;
    const expected = Buffer.from(this.#mac(token.slice(0, dot)));
    const given = Buffer.from(token.slice(dot + 1));
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  #mac(token: string): string {
    return createHmac('sha256', this.#secret!).update(token).digest('base64url').slice(0, 22);
  }
}
