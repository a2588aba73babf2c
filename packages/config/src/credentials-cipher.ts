import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Credentials at rest: AES-256-GCM with a key id, so keys can rotate (old ids still decrypt).
 * Envelope: `v1.<keyId>.<iv>.<tag>.<ciphertext>` (base64url parts). The plaintext is JSON.
 */
export class CredentialsCipher {
  readonly #current: { id: string; key: Buffer };
  readonly #byId: Map<string, Buffer>;

  constructor(currentSecret: string, previousSecrets: readonly string[] = []) {
    const derive = (secret: string) => {
      const key = createHash('sha256').update(`conduit-credentials:${secret}`).digest();
      return { id: createHash('sha256').update(key).digest('hex').slice(0, 8), key };
    };
    this.#current = derive(currentSecret);
    this.#byId = new Map([this.#current, ...previousSecrets.filter(Boolean).map(derive)].map((k) => [k.id, k.key]));
  }

  get keyId(): string {
    return this.#current.id;
  }

  encrypt(value: unknown): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#current.key, iv);
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return ['v1', this.#current.id, iv, cipher.getAuthTag(), ciphertext]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  decrypt(envelope: string): unknown {
    const [version, keyId, iv, tag, ciphertext] = envelope.split('.');
    if (version !== 'v1' || !keyId || !iv || !tag || ciphertext === undefined)
      throw new Error('not a credentials envelope');
    const key = this.#byId.get(keyId);
    if (!key) throw new Error(`credentials were encrypted with an unknown key (${keyId})`);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const plaintext = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]);
    return JSON.parse(plaintext.toString('utf8'));
  }

  /** Whether the envelope uses an older key and should be re-encrypted. */
  isStale(envelope: string): boolean {
    return envelope.split('.')[1] !== this.#current.id;
  }
}
