import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AuditIds } from './audit-ids.ts';

describe('AuditIds', () => {
  const ids = new AuditIds(randomBytes(32));

  it('turns an internal id into an opaque public id and back, for its own organization only', () => {
    const id = ids.publicId('org-a', 42);
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(ids.internalId('org-a', id)).toBe(42);
    expect(ids.internalId('org-b', id)).toBeUndefined();
    expect(ids.internalId('org-a', 'not-an-id')).toBeUndefined();
    // A character that carries bits of the block: another block, whose organization tag no longer matches.
    expect(ids.internalId('org-a', `${id.startsWith('A') ? 'B' : 'A'}${id.slice(1)}`)).toBeUndefined();
  });

  it('refuses another spelling of the same id (the last character differing only in the bits decoding drops)', () => {
    for (let internal = 1; internal <= 64; internal++) {
      const id = ids.publicId('org-a', internal);
      const last = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.indexOf(id.at(-1)!);
      // The same top 2 bits (the data), other low 4 bits (dropped): the same 16 bytes once decoded.
      const twin = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'[last ^ 1]!;
      expect(Buffer.from(`${id.slice(0, 21)}${twin}`, 'base64url')).toEqual(Buffer.from(id, 'base64url'));
      expect(ids.internalId('org-a', `${id.slice(0, 21)}${twin}`)).toBeUndefined();
      expect(ids.internalId('org-a', id)).toBe(internal);
    }
  });

  it('gives neighbouring internal ids unrelated public ids (no order, no distance to read)', () => {
    const a = Buffer.from(ids.publicId('org-a', 1000), 'base64url');
    const b = Buffer.from(ids.publicId('org-a', 1001), 'base64url');
    let differing = 0;
    for (let i = 0; i < a.length; i++) differing += a[i] === b[i] ? 0 : 1;
    // A block cipher changes about every byte when one input bit changes.
    expect(differing).toBeGreaterThan(10);
  });
});
