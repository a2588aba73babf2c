import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { localDatabaseUrl } from './local-database.ts';

describe('localDatabaseUrl', () => {
  it("uses Postgres' Unix socket when the directory holds one", () => {
    const directory = mkdtempSync(join(tmpdir(), 'pg-socket-'));
    writeFileSync(join(directory, '.s.PGSQL.5432'), '');
    expect(localDatabaseUrl('conduit', directory)).toBe(`postgres://postgres@localhost/conduit?host=${directory}`);
  });

  it('falls back to 127.0.0.1:5432 without a socket', () => {
    const directory = mkdtempSync(join(tmpdir(), 'pg-socket-'));
    expect(localDatabaseUrl('conduit_test', directory)).toBe('postgres://postgres@127.0.0.1:5432/conduit_test');
  });
});
