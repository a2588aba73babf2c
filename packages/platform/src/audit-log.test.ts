import type { NewAuditEntry } from '@conduit/db';
import { describe, expect, it } from 'vitest';
import { AuditLog, redactForAudit } from './audit-log.ts';

/** A repository whose inserts wait until the test lets them finish, recording each batch. */
function heldRepository() {
  const batches: NewAuditEntry[][] = [];
  const finish: (() => void)[] = [];
  return {
    batches,
    finishAll: () => {
      for (const go of finish.splice(0)) go();
    },
    insertMany: (rows: readonly NewAuditEntry[]) =>
      new Promise<void>((resolve) => {
        batches.push([...rows]);
        finish.push(resolve);
      }),
  };
}

const entry = (action: string) => ({ organizationId: 'o', source: 'api' as const, action, status: 200, latencyMs: 1 });

describe('AuditLog', () => {
  it('sends an entry alone at once, and the entries that arrive meanwhile together in one insert', async () => {
    const repository = heldRepository();
    const log = new AuditLog(repository);
    const first = log.record(entry('a'));
    const rest = [log.record(entry('b')), log.record(entry('c')), log.record(entry('d'))];
    expect(repository.batches.map((b) => b.map((r) => r.action))).toEqual([['a']]);
    let firstDone = false;
    void first.then(() => {
      firstDone = true;
    });
    repository.finishAll();
    await first;
    expect(firstDone).toBe(true);
    await new Promise((r) => setImmediate(r));
    expect(repository.batches.map((b) => b.map((r) => r.action))).toEqual([['a'], ['b', 'c', 'd']]);
    repository.finishAll();
    await Promise.all(rest);
  });

  it('fails the callers of a batch whose insert failed (their calls must not answer unaudited)', async () => {
    const log = new AuditLog({ insertMany: async () => Promise.reject(new Error('postgres is down')) });
    await expect(log.record(entry('a'))).rejects.toThrow('postgres is down');
  });

  it('keeps a NUL a caller sent as U+FFFD (Postgres holds none), in text and in params', async () => {
    const repository = heldRepository();
    const log = new AuditLog(repository);
    const done = log.record({ ...entry('execute.get'), connectorId: 'a\0b', params: { id: 'x\0y', raw: '\\u0000' } });
    repository.finishAll();
    await done;
    const [row] = repository.batches[0]!;
    expect(row!.connector_id).toBe('a\ufffdb');
    expect(JSON.parse(row!.params as string)).toEqual({ id: 'x\ufffdy', raw: '\\u0000' });
  });
});

describe('redactForAudit', () => {
  it('redacts fields named like secrets and the given ones, keeping the field names of a credentials object', () => {
    expect(
      redactForAudit(
        {
          name: 'n',
          credentials: { api_key: 'k', subdomain: 's' },
          webhook_secret: 'w',
          params: { nested: { refresh_token: 't', email: 'e' } },
          passphrase: 'p',
        },
        new Set(['passphrase']),
      ),
    ).toEqual({
      name: 'n',
      credentials: { api_key: '[REDACTED]', subdomain: '[REDACTED]' },
      webhook_secret: '[REDACTED]',
      params: { nested: { refresh_token: '[REDACTED]', email: 'e' } },
      passphrase: '[REDACTED]',
    });
  });
});
