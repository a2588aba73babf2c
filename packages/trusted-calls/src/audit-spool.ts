import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { NewAuditEntry } from '@conduit/db';

/** Where spooled entries go, with the spool's shipped offset (AuditWriter, docs/trusted-calls.md). */
export interface SpoolTarget {
  createSpool(spool: string): Promise<void>;
  spoolOffset(spool: string): Promise<number | undefined>;
  /** Inserts `lines` and moves the offset from `from` to `to` atomically, only if it is still `from`. */
  shipSpool(spool: string, from: number, to: number, lines: readonly string[]): Promise<boolean>;
  removeSpool(spool: string): Promise<void>;
}

/** The trail cannot take an entry now (the spool's backlog is full, or its file cannot be written): answer 503. */
export class AuditUnavailableError extends Error {
  override name = 'AuditUnavailableError';
}

export interface AuditSpoolOptions {
  /** This database's spool directory (one per database: a recovered file is shipped to the database it names). */
  readonly dir: string;
  /**
   * Above this many unshipped bytes, new calls are not admitted (`admit` throws AuditUnavailableError) rather than
   * the backlog growing without bound.
   */
  readonly maxBacklogBytes: number;
  /** A file past this size is replaced by a new one once fully shipped. */
  readonly rotateBytes?: number;
  /** How often orphaned files (of processes that are gone) are looked for; they are also looked for at open. */
  readonly recoverEveryMs?: number;
  /**
   * Where recovered files are shipped (default: the same target): a target of its own lets a recovery run beside
   * the live shipper, neither waiting for the other's statements on one connection.
   */
  readonly recoveryTarget?: SpoolTarget;
  readonly onError?: (message: string, error: unknown) => void;
}

type ResolvedOptions = Required<Omit<AuditSpoolOptions, 'onError' | 'recoveryTarget'>> &
  Pick<AuditSpoolOptions, 'onError'>;

/** An appended line not yet shipped: its text (without the newline) and the file offset just after it. */
interface SpooledLine {
  readonly line: string;
  readonly end: number;
}

const MAX_BATCH_LINES = 500;
const MAX_BATCH_BYTES = 1 << 20;
const RECOVERY_CHUNK_BYTES = 1 << 20;
const FILE_NAME = /^(.+)\.(\d+)\.(\d+)\.([0-9a-f]+)\.ndjson$/;

/**
 * AUDIT_COMMIT=spool (docs/trusted-calls.md, "Audit trail"): an AuditStore whose `insertEntries` appends the entries
 * to this process's spool file, one NDJSON line each, with one synchronous write (O_APPEND) before the answer leaves:
 * then the entry is in the OS page cache and survives the process's death (SIGKILL), without a round trip to
 * Postgres on the answer's path. A shipper sends the appended lines to Postgres in the background, at once when
 * idle and in growing batches under load, moving the file's shipped offset in the same statement as the insert
 * (SpoolTarget.shipSpool), so each entry lands exactly once whoever ships it. Files of processes that died are
 * shipped by the next process that looks (at open, then every `recoverEveryMs`) and removed.
 *
 * A file is named `<host>.<pid>.<process start>.<token>.ndjson`: a process is alive when its pid runs with the same
 * start time (a reused pid, or pid 1 of a restarted container, is another process). Only files of this host are
 * judged; AUDIT_SPOOL_DIR is meant to be local to one host.
 */
export class AuditSpool {
  readonly #target: SpoolTarget;
  readonly #recoveryTarget: SpoolTarget;
  readonly #options: ResolvedOptions;
  #name: string;
  #fd: number;
  /** Bytes in the current file, and the offset up to which it is shipped. */
  #written = 0;
  #shipped = 0;
  /** A write failed part-way: the next one starts with a newline, so the torn bytes stay a line of their own. */
  #torn = false;
  readonly #queue: SpooledLine[] = [];
  readonly #waiters: { offset: number; resolve: () => void }[] = [];
  #shipping: Promise<void> | undefined;
  #shipSoon = false;
  #recovering: Promise<void> | undefined;
  #recoveryTimer: NodeJS.Timeout | undefined;
  #closed = false;
  /** close gave up waiting: the shipper stops trying, the file is left for the next process. */
  #abandoned = false;

  private constructor(
    target: SpoolTarget,
    recoveryTarget: SpoolTarget,
    options: ResolvedOptions,
    name: string,
    fd: number,
  ) {
    this.#target = target;
    this.#recoveryTarget = recoveryTarget;
    this.#options = options;
    this.#name = name;
    this.#fd = fd;
  }

  /** Opens a new spool file in `options.dir` (its offset row first) and starts recovering orphaned files. */
  static async open(target: SpoolTarget, options: AuditSpoolOptions): Promise<AuditSpool> {
    mkdirSync(options.dir, { recursive: true });
    const { recoveryTarget = target, ...rest } = options;
    const resolved = { rotateBytes: 64 << 20, recoverEveryMs: 60_000, ...rest };
    const name = newSpoolName();
    // The row before the file: a file on disk always has an offset to ship from.
    await target.createSpool(name);
    const spool = new AuditSpool(
      target,
      recoveryTarget,
      resolved,
      name,
      openSync(join(options.dir, `${name}.ndjson`), 'a'),
    );
    spool.#recoverInBackground();
    spool.#recoveryTimer = setInterval(() => spool.#recoverInBackground(), resolved.recoverEveryMs);
    spool.#recoveryTimer.unref();
    return spool;
  }

  /** This process's current spool (its file is `<name>.ndjson`). */
  get name(): string {
    return this.#name;
  }

  /** Bytes appended and not yet shipped. */
  get backlogBytes(): number {
    return this.#written - this.#shipped;
  }

  /**
   * AuditStore's write: appends the rows (their `at` now, by this process's clock, when unset) in one write, and
   * returns once they are in the file. Ids are never returned: AUDIT_COMMIT=spool writes whole calls only.
   */
  async insertEntries(rows: readonly NewAuditEntry[]): Promise<readonly string[]> {
    this.append(rows);
    return [];
  }

  async insertOutcomes(): Promise<void> {
    throw new Error('AUDIT_COMMIT=spool writes whole calls; it has no outcomes to add');
  }

  /** AuditStore's admission: throws AuditUnavailableError while the spool is closed or its backlog is full. */
  admit(): void {
    if (this.#closed) throw new AuditUnavailableError('the audit spool is closed (the process is stopping)');
    if (this.backlogBytes > this.#options.maxBacklogBytes) {
      throw new AuditUnavailableError(
        `the audit trail is behind: ${this.backlogBytes} bytes not yet stored in the database (it may be unreachable)`,
      );
    }
  }

  /**
   * The synchronous part of insertEntries. The backlog's bound is not checked here but at admission (`admit`,
   * before a call runs): a call already run is written, so the backlog may pass the bound by the calls in flight.
   */
  append(rows: readonly NewAuditEntry[]): void {
    if (this.#closed) throw new AuditUnavailableError('the audit spool is closed (the process is stopping)');
    const at = new Date();
    const lines = rows.map((row) => JSON.stringify({ ...row, at: row.at ?? at }));
    const text = `${this.#torn ? '\n' : ''}${lines.join('\n')}\n`;
    const bytes = Buffer.from(text);
    let written = 0;
    try {
      written = writeSync(this.#fd, bytes);
    } catch (error) {
      this.#torn = true;
      throw new AuditUnavailableError(`the audit spool could not be written: ${String(error)}`, { cause: error });
    }
    if (written !== bytes.length) {
      this.#torn = true;
      this.#written += written;
      throw new AuditUnavailableError(`the audit spool could not be written: ${written} of ${bytes.length} bytes`);
    }
    let end = this.#written + (this.#torn ? 1 : 0);
    this.#torn = false;
    for (const line of lines) {
      end += Buffer.byteLength(line) + 1;
      this.#queue.push({ line, end });
    }
    this.#written = end;
    this.#scheduleShip();
  }

  /**
   * Resolves once everything appended before the call is in the database (read-your-writes for GET /api/v1/audit);
   * rejects with AuditUnavailableError after `timeoutMs`.
   */
  caughtUp(timeoutMs = 5000): Promise<void> {
    // The end of the last appended line (not #written, which may end with the torn bytes of a failed write).
    const offset = this.#queue.at(-1)?.end ?? this.#shipped;
    if (this.#shipped >= offset) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const index = this.#waiters.indexOf(waiter);
        if (index >= 0) this.#waiters.splice(index, 1);
        reject(
          new AuditUnavailableError(`the audit trail is behind: not stored in the database within ${timeoutMs} ms`),
        );
      }, timeoutMs);
      const waiter = {
        offset,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      this.#waiters.push(waiter);
    });
  }

  /**
   * Ships what is left (giving up after `timeoutMs`, the file then an orphan for the next process), closes the file
   * and removes it once fully shipped. Appends fail from now on.
   */
  async close(timeoutMs = 10_000): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#recoveryTimer);
    const deadline = Date.now() + timeoutMs;
    while (this.#queue.length > 0 && Date.now() < deadline) {
      this.#scheduleShip();
      await Promise.race([this.#shipping ?? sleep(10), untilDeadline(deadline)]);
    }
    this.#abandoned = this.#queue.length > 0;
    await Promise.race([this.#recovering, untilDeadline(deadline)]);
    closeSync(this.#fd);
    if (this.#queue.length === 0) await this.#remove(this.#name).catch((error) => this.#error('removing', error));
  }

  /** Ships the files of processes that are gone, then removes them; concurrent recoverers are safe. */
  async recoverOrphans(): Promise<void> {
    const self = processIdentity();
    for (const file of readdirSync(this.#options.dir)) {
      const parsed = FILE_NAME.exec(file);
      if (!parsed || parsed[1] === undefined) continue;
      const spool = file.slice(0, -'.ndjson'.length);
      if (spool === this.#name || parsed[1] !== self.host) continue;
      if (isRunning(Number(parsed[2]), Number(parsed[3]))) continue;
      await this.#recoverFile(spool);
    }
  }

  #recoverInBackground(): void {
    if (this.#recovering || this.#closed) return;
    this.#recovering = this.recoverOrphans()
      .catch((error: unknown) => this.#error('recovering orphaned spool files', error))
      .finally(() => {
        this.#recovering = undefined;
      });
  }

  async #recoverFile(spool: string): Promise<void> {
    const path = join(this.#options.dir, `${spool}.ndjson`);
    const known = await this.#recoveryTarget.spoolOffset(spool);
    // No row: the file was fully shipped and removed by another recoverer, or its row was never made (then it
    // holds no line: the row is made before the file).
    if (known === undefined) return;
    let offset: number = known;
    const file = await open(path, 'r').catch(() => undefined);
    if (!file) return;
    try {
      let chunkBytes = RECOVERY_CHUNK_BYTES;
      for (;;) {
        const buffer = Buffer.alloc(chunkBytes);
        const { bytesRead } = await file.read(buffer, 0, chunkBytes, offset);
        const lastNewline = buffer.subarray(0, bytesRead).lastIndexOf(10);
        if (lastNewline < 0) {
          // Nothing left but, at most, a torn last line: a write the crash cut, whose call was never answered (the
          // answer waits for the whole write). A line longer than the chunk: read a bigger one.
          if (bytesRead < chunkBytes) break;
          chunkBytes *= 2;
          continue;
        }
        const lines = parseSpoolLines(buffer.toString('utf8', 0, lastNewline));
        const to = offset + lastNewline + 1;
        if (await this.#recoveryTarget.shipSpool(spool, offset, to, lines)) offset = to;
        else {
          // Another recoverer moved it first: go on from where it is.
          const moved = await this.#recoveryTarget.spoolOffset(spool);
          if (moved === undefined) return;
          offset = moved;
        }
      }
    } finally {
      await file.close();
    }
    await this.#remove(spool, this.#recoveryTarget);
  }

  /** The file first, then its row: a crash between leaves a row without a file, harmless, never a file without a row. */
  async #remove(spool: string, target = this.#target): Promise<void> {
    try {
      unlinkSync(join(this.#options.dir, `${spool}.ndjson`));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    await target.removeSpool(spool);
  }

  // Alone, an entry ships at once; the shipper starts after this turn of the event loop (the answer is written
  // first) and keeps going while lines arrive, each batch taking all that came during the previous one.
  #scheduleShip(): void {
    if (this.#shipping || this.#shipSoon) return;
    this.#shipSoon = true;
    setImmediate(() => {
      this.#shipSoon = false;
      this.#shipping ??= this.#ship().finally(() => {
        this.#shipping = undefined;
        // Lines appended while the last batch's answer was already in (during a rotation): not left waiting.
        if (this.#queue.length > 0 && !this.#closed) this.#scheduleShip();
      });
    });
  }

  async #ship(): Promise<void> {
    let failures = 0;
    while (this.#queue.length > 0 && !this.#abandoned) {
      const batch: string[] = [];
      let bytes = 0;
      for (const spooled of this.#queue) {
        if (batch.length === MAX_BATCH_LINES || (bytes > 0 && bytes + spooled.line.length > MAX_BATCH_BYTES)) break;
        batch.push(spooled.line);
        bytes += spooled.line.length;
      }
      const to = this.#queue[batch.length - 1]!.end;
      try {
        if (await this.#target.shipSpool(this.#name, this.#shipped, to, batch)) this.#advance(to);
        else {
          // Moved already: an earlier attempt committed though its answer was lost (the connection broke).
          const offset = await this.#target.spoolOffset(this.#name);
          if (offset === undefined || offset <= this.#shipped) {
            throw new Error(
              `the audit spool ${this.#name}'s offset is ${offset}, not ${this.#shipped} as shipped here`,
            );
          }
          this.#advance(offset);
        }
        failures = 0;
      } catch (error) {
        // Postgres unreachable (or failing): the lines stay queued and in the file; try again, less and less often.
        if (failures++ === 0) this.#error('shipping (retrying with backoff)', error);
        await sleep(Math.min(25 * 2 ** failures, 2000));
      }
    }
    await this.#rotateIfDue();
  }

  #advance(offset: number): void {
    this.#shipped = Math.max(this.#shipped, offset);
    while (this.#queue.length > 0 && this.#queue[0]!.end <= this.#shipped) this.#queue.shift();
    for (let i = this.#waiters.length - 1; i >= 0; i--) {
      const waiter = this.#waiters[i]!;
      if (waiter.offset <= this.#shipped) {
        this.#waiters.splice(i, 1);
        waiter.resolve();
      }
    }
  }

  /** A fully shipped file past its size makes way for a new one (the old one is then removed). */
  async #rotateIfDue(): Promise<void> {
    if (this.#closed || this.#written < this.#options.rotateBytes || this.#queue.length > 0) return;
    const next = newSpoolName();
    try {
      await this.#target.createSpool(next);
    } catch (error) {
      this.#error('rotating', error);
      return;
    }
    // Appends may have come while the row was made: then rotate another time, this row removed.
    if (this.#closed || this.#queue.length > 0) {
      await this.#target.removeSpool(next).catch(() => undefined);
      return;
    }
    const old = this.#name;
    const oldFd = this.#fd;
    this.#fd = openSync(join(this.#options.dir, `${next}.ndjson`), 'a');
    this.#name = next;
    this.#written = 0;
    this.#shipped = 0;
    closeSync(oldFd);
    await this.#remove(old).catch((error) => this.#error('removing a rotated file', error));
  }

  #error(doing: string, error: unknown): void {
    this.#options.onError?.(`audit spool: ${doing} failed`, error);
  }
}

/**
 * The complete lines of a spool file's text, as the batch insert takes them. A line that is not JSON is the torn
 * remnant of a failed write (its call got an error, not an answer) and is left out.
 */
export function parseSpoolLines(text: string): string[] {
  return text.split('\n').filter((line) => {
    if (line === '') return false;
    try {
      JSON.parse(line);
      return true;
    } catch {
      return false;
    }
  });
}

function newSpoolName(): string {
  const { host, pid, start } = processIdentity();
  return `${host}.${pid}.${start}.${randomBytes(6).toString('hex')}`;
}

let identity: { host: string; pid: number; start: number } | undefined;

function processIdentity(): { host: string; pid: number; start: number } {
  identity ??= {
    host: hostname().replace(/[^A-Za-z0-9-]/g, '_'),
    pid: process.pid,
    start: startTicks(process.pid) ?? 0,
  };
  return identity;
}

/** When process `pid` started, in clock ticks since boot (Linux's /proc/<pid>/stat field 22); undefined: not running or no /proc. */
function startTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses): the state is field 3.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
  } catch {
    return undefined;
  }
}

/** Whether the process that made a file still runs: its pid, started at the same tick (0: no /proc, pid alone). */
export function isRunning(pid: number, start: number): boolean {
  if (start !== 0) return startTicks(pid) === start;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Resolves at `deadline`; its timer alone does not keep the process running (it bounds the work raced against it). */
function untilDeadline(deadline: number): Promise<void> {
  return sleep(Math.max(0, deadline - Date.now()), undefined, { ref: false });
}
