import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';

const BLOCK = 16;

/**
 * The audit trail's public entry ids: the row's internal id (one sequence for the whole platform, which orders the
 * trail) and a tag of its organization, encrypted as one AES-256 block. A caller sees 22 characters that say nothing
 * about how many entries other organizations wrote between two of its own, and cannot make the id of another
 * organization's entry; the API decrypts an id it handed out (a cursor) back to its row, and refuses one of another
 * organization. The key is derived from TOKEN_SIGNING_KEY (signingKeysFrom): rotating it changes every public id and
 * ends open cursors.
 *
 * @example
 * const ids = new AuditIds(signingKeysFrom(env).auditId);
 * const id = ids.publicId('org-a', 42); // 'q3V0...'
 * ids.internalId('org-a', id); // 42
 * ids.internalId('org-b', id); // undefined
 */
export class AuditIds {
  readonly #key: Uint8Array;

  constructor(key: Uint8Array) {
    if (key.length !== 32) throw new Error('AuditIds: the key must be 32 bytes (AES-256)');
    this.#key = key;
  }

  publicId(organizationId: string, id: number | string): string {
    const block = Buffer.alloc(BLOCK);
    block.writeBigUInt64BE(BigInt(id), 0);
    organizationTag(organizationId).copy(block, 8);
    // One block under ECB is the block cipher itself: a keyed permutation of 128-bit values, no padding.
    const cipher = createCipheriv('aes-256-ecb', this.#key, null).setAutoPadding(false);
    return Buffer.concat([cipher.update(block), cipher.final()]).toString('base64url');
  }

  /** The internal id of a public id this API made for `organizationId`; undefined for anything else. */
  internalId(organizationId: string, publicId: string): number | undefined {
    if (!/^[A-Za-z0-9_-]{22}$/.test(publicId)) return undefined;
    const encrypted = Buffer.from(publicId, 'base64url');
    // 22 characters carry 132 bits for 128: the last one's 4 low bits are dropped when decoding, so 16 spellings
    // would name one entry. Only the spelling publicId writes is an id.
    if (encrypted.toString('base64url') !== publicId) return undefined;
    const decipher = createDecipheriv('aes-256-ecb', this.#key, null).setAutoPadding(false);
    const block = Buffer.concat([decipher.update(encrypted), decipher.final()]);
    if (!block.subarray(8).equals(organizationTag(organizationId))) return undefined;
    const id = block.readBigUInt64BE(0);
    return id <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(id) : undefined;
  }
}

function organizationTag(organizationId: string): Buffer {
  return createHash('sha256').update(organizationId).digest().subarray(0, 8);
}
