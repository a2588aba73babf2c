import { hkdfSync } from 'node:crypto';

/** What a key signs. Each purpose gets its own key, so a token of one kind never verifies as another. */
export type SigningPurpose = 'access-token' | 'oauth-state' | 'search-cursor' | 'audit-id';

export interface SigningKeys {
  /** HS256 key of API bearer tokens (AccessTokens). */
  readonly accessToken: Uint8Array;
  /** HS256 key of OAuth consent states. */
  readonly oauthState: Uint8Array;
  /** HMAC key of search cursors. */
  readonly searchCursor: Uint8Array;
  /** AES-256 key of the audit trail's public entry ids and cursors (always from TOKEN_SIGNING_KEY). */
  readonly auditId: Uint8Array;
}

/** The configured secret: one root from which every purpose's key is derived. */
export interface SigningSecrets {
  readonly TOKEN_SIGNING_KEY: string;
}

// A fixed, public salt (RFC 5869 §3.1: salt need not be secret); the purpose goes into `info`, so the keys are
// independent: knowing one derived key tells nothing about the others or about the secret.
const SALT = 'conduit/signing-keys/v1';

/** HKDF-SHA256 (RFC 5869) of a configured secret into the 32-byte key of one purpose. */
export function deriveSigningKey(secret: string, purpose: SigningPurpose): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', secret, SALT, `conduit/${purpose}`, 32));
}

/**
 * The key of every purpose, derived from TOKEN_SIGNING_KEY, never the secret itself, so one leaked key does not
 * forge the others. Rotating the secret rotates every purpose at once: bearer tokens are issued again on the next
 * client-credentials call, open cursors and consent flows end (docs/security.md).
 */
export function signingKeysFrom(secrets: SigningSecrets): SigningKeys {
  const from = (purpose: SigningPurpose) => deriveSigningKey(secrets.TOKEN_SIGNING_KEY, purpose);
  return {
    accessToken: from('access-token'),
    oauthState: from('oauth-state'),
    searchCursor: from('search-cursor'),
    auditId: from('audit-id'),
  };
}
