import type { NewAuditEntry } from '@conduit/db';
import { describe, expect, it } from 'vitest';
import { AuditLog, redactForAudit } from './audit-log.ts';

/** A store whose inserts wait until the test lets them finish, recording each batch; ids count from 1. */
function heldStore() {
  const batches: NewAuditEntry[][] = [];
  const finish: (() => void)[] = [];
  let nextId = 1;
  return {
    batches,
    finishAll: () => {
      for (const go of finish.splice(0)) go();
    },
    insertEntries: (rows: readonly NewAuditEntry[]) =>
      new Promise<string[]>((resolve) => {
        batches.push([...rows]);
        finish.push(() => resolve(rows.map(() => String(nextId++))));
      }),
  };
}

const turn = () => new Promise((r) => setImmediate(r));
const intent = (action: string) => ({ organizationId: 'o', source: 'api' as const, action });
const entry = (action: string) => ({ ...intent(action), status: 200, latencyMs: 1 });

describe('AuditLog', () => {
  it('sends an entry alone at once, and the entries that arrive meanwhile together in one insert', async () => {
    const store = heldStore();
    const log = new AuditLog(store);
    const first = log.record(entry('a'));
    const rest = [log.record(entry('b')), log.record(entry('c')), log.record(entry('d'))];
    expect(store.batches.map((b) => b.map((r) => r.action))).toEqual([['a']]);
    let firstDone = false;
    void first.then(() => {
      firstDone = true;
    });
    store.finishAll();
    await first;
    expect(firstDone).toBe(true);
    await turn();
    expect(store.batches.map((b) => b.map((r) => r.action))).toEqual([['a'], ['b', 'c', 'd']]);
    store.finishAll();
    await Promise.all(rest);
  });

  it('writes nothing until a call finishes, then the whole call in one row', async () => {
    const store = heldStore();
    const log = new AuditLog(store);
    const call = log.begin({ ...intent('execute.list'), requestId: 'r1' });
    expect(store.batches).toEqual([]);
    const done = call.finish({ status: 200, upstreamStatus: 200, latencyMs: 2 });
    expect(store.batches).toEqual([
      [expect.objectContaining({ action: 'execute.list', request_id: 'r1', status: 200, latency_ms: 2 })],
    ]);
    store.finishAll();
    await done;
  });

  it('calls answered in one turn while others run share one insert, started at the turn’s end', async () => {
    const store = heldStore();
    const log = new AuditLog(store);
    const [a, b, c] = ['a', 'b', 'c'].map((action) => log.begin(intent(action)));
    const answered = [a!.finish({ status: 200, latencyMs: 1 }), b!.finish({ status: 200, latencyMs: 1 })];
    expect(store.batches).toEqual([]);
    await turn();
    expect(store.batches.map((batch) => batch.map((r) => r.action))).toEqual([['a', 'b']]);
    store.finishAll();
    await Promise.all(answered);
    // The last one running: alone, it leaves at once.
    const last = c!.finish({ status: 200, latencyMs: 1 });
    expect(store.batches.map((batch) => batch.map((r) => r.action))).toEqual([['a', 'b'], ['c']]);
    store.finishAll();
    await last;
  });

  it('fails the callers of a batch whose insert failed (their calls must not answer unaudited)', async () => {
    const down = async () => Promise.reject(new Error('postgres is down'));
    const log = new AuditLog({ insertEntries: down });
    await expect(log.record(entry('a'))).rejects.toThrow('postgres is down');
    await expect(log.begin(intent('b')).finish({ status: 200, latencyMs: 1 })).rejects.toThrow('postgres is down');
  });

  it('keeps a NUL a caller sent as U+FFFD (Postgres holds none), in text and in params', async () => {
    const store = heldStore();
    const log = new AuditLog(store);
    const done = log.record({ ...entry('execute.get'), connectorId: 'a\0b', params: { id: 'x\0y', raw: '\\u0000' } });
    store.finishAll();
    await done;
    const [row] = store.batches[0]!;
    expect(row!.connector_id).toBe('a\ufffdb');
    expect(JSON.parse(row!.params as string)).toEqual({ id: 'x\ufffdy', raw: '\\u0000' });
  });

  it('keeps a lone UTF-16 surrogate as U+FFFD (not UTF-8: Postgres refuses it in JSON), a surrogate pair as is', async () => {
    const store = heldStore();
    const log = new AuditLog(store);
    const call = log.begin({
      ...intent('execute.get'),
      entity: 'a\ud800b',
      requestId: 'r\udc00',
      params: { lone: 'x\udfffy', pair: '\ud83d\ude00', raw: '\\ud800' },
    });
    const done = call.finish({ status: 200, latencyMs: 1 });
    store.finishAll();
    await done;
    const [row] = store.batches[0]!;
    expect(row!.entity).toBe('a\ufffdb');
    expect(row!.request_id).toBe('r\ufffd');
    expect(JSON.parse(row!.params as string)).toEqual({ lone: 'x\ufffdy', pair: '\ud83d\ude00', raw: '\\ud800' });
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

  it('replaces what lies beyond its depth with [TRUNCATED], so a password at depth 17 is never kept', () => {
    let deep: unknown = { password: 'deep-secret-XYZ', note: 'n' };
    for (let i = 0; i < 17; i++) deep = i % 2 ? { level: deep } : [deep];
    const redacted = JSON.stringify(redactForAudit({ params: deep }));
    expect(redacted).not.toContain('deep-secret-XYZ');
    expect(redacted).toContain('"[TRUNCATED]"');
    // Within the depth, a secret is redacted and the rest kept as it was.
    expect(redactForAudit({ a: [{ b: { password: 'p', keep: 1 } }] })).toEqual({
      a: [{ b: { password: '[REDACTED]', keep: 1 } }],
    });
  });
});
