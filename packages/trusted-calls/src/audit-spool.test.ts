import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewAuditEntry } from '@conduit/db';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditLog } from './audit-log.ts';
import { AuditSpool, AuditUnavailableError, parseSpoolLines, type SpoolTarget } from './audit-spool.ts';

/** The database's side in memory: offsets moved only from where they are (as AuditWriter.shipSpool), entries kept. */
function memoryTarget() {
  const offsets = new Map<string, number>();
  const entries: (NewAuditEntry & { at: string })[] = [];
  const batches: number[] = [];
  const state = { down: false };
  const target: SpoolTarget = {
    createSpool: async (spool) => {
      if (!offsets.has(spool)) offsets.set(spool, 0);
    },
    spoolOffset: async (spool) => offsets.get(spool),
    shipSpool: async (spool, from, to, lines) => {
      await new Promise((r) => setTimeout(r, 1));
      if (state.down) throw new Error('connection refused');
      if (offsets.get(spool) !== from) return false;
      offsets.set(spool, to);
      entries.push(...lines.map((line) => JSON.parse(line)));
      batches.push(lines.length);
      return true;
    },
    removeSpool: async (spool) => {
      offsets.delete(spool);
    },
  };
  return { target, offsets, entries, batches, state };
}

const row = (action: string): NewAuditEntry => ({
  at: null,
  organization_id: 'o',
  client_id: null,
  connector_id: null,
  source: 'api',
  action,
  entity: null,
  params: JSON.stringify({ note: 'é "quoted"' }),
  idempotency_key: null,
  status: 200,
  error_code: null,
  upstream_status: null,
  latency_ms: 1,
  request_id: null,
});

const dirs: string[] = [];
const spools: AuditSpool[] = [];
afterEach(async () => {
  for (const spool of spools.splice(0)) await spool.close(100);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function spoolDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'audit-spool-'));
  dirs.push(dir);
  return dir;
}

async function openSpool(
  target: SpoolTarget,
  dir: string,
  options: { maxBacklogBytes?: number; rotateBytes?: number } = {},
) {
  const spool = await AuditSpool.open(target, { dir, maxBacklogBytes: 1 << 20, ...options });
  spools.push(spool);
  return spool;
}

/** A file name of this host whose process is gone: this pid, started at another tick. */
const orphanName = (token: string) => `${hostname().replace(/[^A-Za-z0-9-]/g, '_')}.${process.pid}.1.${token}`;

describe('AuditSpool', () => {
  it('appends one NDJSON line per entry, `at` set by this process, ships it at once, and caughtUp waits for it', async () => {
    const db = memoryTarget();
    const dir = spoolDir();
    const spool = await openSpool(db.target, dir);
    const before = Date.now();
    await spool.insertEntries([row('a')]);
    const [line, end] = readFileSync(join(dir, `${spool.name}.ndjson`), 'utf8').split('\n');
    expect(end).toBe('');
    expect(JSON.parse(line!)).toMatchObject({ action: 'a', params: '{"note":"é \\"quoted\\""}' });
    expect(Date.parse(JSON.parse(line!).at)).toBeGreaterThanOrEqual(before);
    expect(db.entries).toHaveLength(0);
    await spool.caughtUp();
    expect(db.entries.map((e) => e.action)).toEqual(['a']);
    expect(db.offsets.get(spool.name)).toBe(Buffer.byteLength(`${line}\n`));
  });

  it('entries answered in one turn share one write; under load the batches grow', async () => {
    const db = memoryTarget();
    const dir = spoolDir();
    const spool = await openSpool(db.target, dir);
    const log = new AuditLog(spool, { intents: false });
    const calls = Array.from({ length: 50 }, (_, i) =>
      log.begin({ organizationId: 'o', source: 'api', action: `c${i}` }),
    );
    await Promise.all(calls.map((call) => call.finish({ status: 200, latencyMs: 1 })));
    await log.caughtUp();
    expect(db.entries.map((e) => e.action)).toEqual(calls.map((_, i) => `c${i}`));
    expect(db.batches.length).toBeLessThan(50);
  });

  it('over the backlog bound (the database unreachable) calls are not admitted (AuditUnavailableError), calls already admitted are still written; all ship once it is back', async () => {
    const db = memoryTarget();
    const spool = await openSpool(db.target, spoolDir(), { maxBacklogBytes: 2000 });
    db.state.down = true;
    let taken = 0;
    for (;;) {
      try {
        spool.admit();
        spool.append([row(`e${taken}`)]);
        taken++;
      } catch (error) {
        expect(error).toBeInstanceOf(AuditUnavailableError);
        break;
      }
    }
    expect(taken).toBeGreaterThan(5);
    // A call admitted before the bound was passed and answered after it is still written.
    spool.append([row(`e${taken}`)]);
    taken++;
    expect(() => spool.admit()).toThrow(AuditUnavailableError);
    expect(db.entries).toHaveLength(0);
    db.state.down = false;
    await spool.caughtUp();
    expect(db.entries).toHaveLength(taken);
    expect(spool.backlogBytes).toBe(0);
    spool.append([row('after')]);
  });

  it('caughtUp gives up with AuditUnavailableError when the database stays unreachable', async () => {
    const db = memoryTarget();
    const spool = await openSpool(db.target, spoolDir());
    db.state.down = true;
    spool.append([row('stuck')]);
    await expect(spool.caughtUp(50)).rejects.toBeInstanceOf(AuditUnavailableError);
    db.state.down = false;
    await spool.caughtUp();
    expect(db.entries.map((e) => e.action)).toEqual(['stuck']);
  });

  it('recovers an orphaned file from its shipped offset: complete lines once, a torn remnant and a torn last line left out; then removes it', async () => {
    const db = memoryTarget();
    const dir = spoolDir();
    const orphan = orphanName('aaaa');
    const lines = [row('shipped-before'), row('one'), row('two')].map((r) => JSON.stringify({ ...r, at: new Date() }));
    const shippedBefore = Buffer.byteLength(`${lines[0]}\n`);
    // A write that failed part-way (then the next started with a newline), and a last write cut by the crash.
    writeFileSync(join(dir, `${orphan}.ndjson`), `${lines[0]}\n${lines[1]}\n{"at":"2026-\n${lines[2]}\n{"organiz`);
    db.offsets.set(orphan, shippedBefore);
    // Two processes recover it side by side: each entry still lands once.
    const [first, second] = await Promise.all([openSpool(db.target, dir), openSpool(db.target, dir)]);
    await Promise.all([first!.recoverOrphans(), second!.recoverOrphans()]);
    expect(db.entries.map((e) => e.action)).toEqual(['one', 'two']);
    expect(db.offsets.has(orphan)).toBe(false);
    expect(readdirSync(dir).some((file) => file.startsWith(orphan))).toBe(false);
  });

  it('leaves the files of running processes alone (another spool of this process)', async () => {
    const db = memoryTarget();
    const dir = spoolDir();
    const owner = await openSpool(db.target, dir);
    db.state.down = true;
    owner.append([row('pending')]);
    const other = await openSpool(db.target, dir);
    await other.recoverOrphans();
    expect(db.entries).toHaveLength(0);
    expect(readdirSync(dir)).toContain(`${owner.name}.ndjson`);
    db.state.down = false;
    await owner.caughtUp();
    expect(db.entries.map((e) => e.action)).toEqual(['pending']);
  });

  it('rotates a file past its size once fully shipped; close ships the rest and removes the file', async () => {
    const db = memoryTarget();
    const dir = spoolDir();
    const spool = await openSpool(db.target, dir, { rotateBytes: 500 });
    const first = spool.name;
    for (let i = 0; i < 5; i++) spool.append([row(`r${i}`)]);
    await spool.caughtUp();
    await expect.poll(() => spool.name).not.toBe(first);
    expect(db.offsets.has(first)).toBe(false);
    spool.append([row('last')]);
    await spool.close();
    expect(db.entries.map((e) => e.action)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'last']);
    expect(readdirSync(dir)).toEqual([]);
    expect(db.offsets.size).toBe(0);
    expect(() => spool.append([row('closed')])).toThrow(AuditUnavailableError);
  });
});

describe('parseSpoolLines', () => {
  it('keeps complete JSON lines, drops empty lines and torn remnants', () => {
    expect(parseSpoolLines('{"a":1}\n\n{"b":\n{"c":2}')).toEqual(['{"a":1}', '{"c":2}']);
  });
});
