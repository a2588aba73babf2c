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
    // Tampered in its first character: the last one of 22 carries 2 of its 6 bits, so changing it may change nothing.
    expect(ids.internalId('org-a', `${id.startsWith('A') ? 'B' : 'A'}${id.slice(1)}`)).toBeUndefined();
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
