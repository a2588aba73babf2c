import { readFileSync } from 'node:fs';
import type { RedisClient } from '@conduit/queues';

/** The script's name on the client (ioredis `defineCommand`: EVALSHA, the script sent once per connection). */
const SIGNAL_CHANGE = 'conduitSignalChange';
/**
 * Announcements the stream keeps (approximately): a reader further behind than this has lost some and drops what it
 * holds. An announcement is one append of a connector's feed (a sync's write group, a webhook's re-read), so this is
 * minutes of the busiest load measured, and a reader is never more than one blocking read behind.
 */
const STREAM_LENGTH = 100_000;
/** A connector's announced head outlives the feed's default retention: an absent one is read from Postgres. */
const HEAD_TTL_MS = 31 * 24 * 3600 * 1000;

interface SignalCommands {
  conduitSignalChange(
    counter: string,
    stream: string,
    head: string,
    connectorId: string,
    entity: string,
    lastSeq: string,
    streamLength: string,
    headTtlMs: string,
  ): Promise<number>;
}

/** One append to a connector's change feed, as announced: every event of `entity` up to `lastSeq` is in the feed. */
export interface ChangeSignal {
  /** The announcement's number: one more than the one before, across every process. */
  readonly n: number;
  readonly connectorId: string;
  readonly entity: string;
  readonly lastSeq: number;
}

/** Where the announcements stand, read in one round trip before a search. */
export interface SignalPosition {
  /** The number of the last announcement made. */
  readonly announced: number;
  /** The connector's feed head as last announced; undefined when Redis has none (read the feed's own). */
  readonly head: number | undefined;
}

/**
 * The keys of one namespace's announcements, under one hash tag: the script touches all three, which Redis Cluster
 * allows only in one slot (https://redis.io/docs/latest/operate/oss_and_stack/reference/cluster-spec/#hash-tags).
 */
export function signalKeys(namespace: string) {
  const tag = `{${namespace}:answers}`;
  return {
    counter: `${tag}:n`,
    stream: `${tag}:changes`,
    head: (connectorId: string) => `${tag}:head:${connectorId}`,
  };
}

/**
 * Announces appends to the change feed to every API instance (docs/architecture.md, "The answer cache"): a Redis stream
 * whose entries are numbered without gaps by `lua/signal-change-3.lua`, and each connector's feed head.
 *
 * @example
 * const signals = new ChangeSignals(redis, env.NAMESPACE);
 * const feed = new ChangeFeedRepository(db, { onAppended: (id, entity, seq) => signals.announce(id, entity, seq) });
 */
export class ChangeSignals {
  readonly #redis: RedisClient & SignalCommands;
  readonly #keys: ReturnType<typeof signalKeys>;

  constructor(redis: RedisClient, namespace: string) {
    const lua = readFileSync(new URL('./lua/signal-change-3.lua', import.meta.url), 'utf8');
    redis.defineCommand(SIGNAL_CHANGE, { numberOfKeys: 3, lua });
    this.#redis = redis as RedisClient & SignalCommands;
    this.#keys = signalKeys(namespace);
  }

  /** After an append committed: its entity and last event's number. */
  async announce(connectorId: string, entity: string, lastSeq: number): Promise<void> {
    const keys = this.#keys;
    await this.#redis.conduitSignalChange(
      keys.counter,
      keys.stream,
      keys.head(connectorId),
      connectorId,
      entity,
      String(lastSeq),
      String(STREAM_LENGTH),
      String(HEAD_TTL_MS),
    );
  }

  /**
   * A head read from the feed itself, for a connector Redis knows none of (no append announced within its time to
   * live): kept unless an announcement set one meanwhile, so later questions read it from here, not Postgres.
   */
  async seedHead(connectorId: string, head: number): Promise<void> {
    await this.#redis.set(this.#keys.head(connectorId), String(head), 'PX', HEAD_TTL_MS, 'NX');
  }

  /** The last announcement's number and the connector's announced head, in one round trip. */
  async position(connectorId: string): Promise<SignalPosition> {
    const [announced, head] = await this.#redis.mget(this.#keys.counter, this.#keys.head(connectorId));
    return { announced: Number(announced ?? 0), head: head == null ? undefined : Number(head) };
  }
}

/** Stream entries as ioredis returns them: `[id, [field, value, ...]]`. */
type StreamEntry = [string, string[]];

/**
 * Reads every announcement, in order, on a connection of its own (XREAD blocks it). `onSignals` gets each batch;
 * `onMissed` is called whenever some may have been missed (a number skipped: the stream was trimmed past us or the
 * counter started again; the connection lost), and the reader starts again from the stream's end.
 */
export class SignalReader {
  readonly #redis: RedisClient;
  readonly #stream: string;
  readonly #counter: string;
  readonly #onSignals: (signals: readonly ChangeSignal[]) => void;
  readonly #onMissed: () => void;
  readonly #onError: (error: unknown) => void;
  #lastId = '$';
  #received = 0;
  #live = false;
  #closed = false;
  #waiters: { n: number; resolve: (caughtUp: boolean) => void }[] = [];
  #loop: Promise<void> | undefined;

  constructor(
    redis: RedisClient,
    namespace: string,
    handlers: {
      readonly onSignals: (signals: readonly ChangeSignal[]) => void;
      readonly onMissed: () => void;
      readonly onError: (error: unknown) => void;
    },
  ) {
    this.#redis = redis;
    this.#stream = signalKeys(namespace).stream;
    this.#counter = signalKeys(namespace).counter;
    this.#onSignals = handlers.onSignals;
    this.#onMissed = handlers.onMissed;
    this.#onError = handlers.onError;
    // A reconnection may have lost announcements (a failover to a replica that had not seen them): start again.
    redis.on('reconnecting', () => {
      if (this.#closed) return;
      this.#live = false;
      this.#missed();
    });
  }

  /** Reads from the stream's end from now on. */
  async start(): Promise<void> {
    await this.#fromEnd();
    this.#loop = this.#run();
  }

  /** Whether every announcement since the reader (re)started was read: only then may answers be kept. */
  get live(): boolean {
    return this.#live;
  }

  /** The number of the last announcement read. */
  get received(): number {
    return this.#received;
  }

  /** Resolves true once announcement `n` was read (at once if it was), false after `timeoutMs` or when not live. */
  whenReceived(n: number, timeoutMs: number): Promise<boolean> {
    if (!this.#live) return Promise.resolve(false);
    if (this.#received >= n) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = { n, resolve };
      this.#waiters.push(waiter);
      setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs).unref();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#live = false;
    this.#redis.disconnect();
    await this.#loop?.catch(() => undefined);
    this.#settle(false);
  }

  async #fromEnd(): Promise<void> {
    const last = (await this.#redis.xrevrange(this.#stream, '+', '-', 'COUNT', 1)) as StreamEntry[];
    const entry = last[0];
    this.#lastId = entry ? entry[0] : '0-0';
    // No stream (none announced yet, or it was removed): the counter says where the numbers stand.
    this.#received = entry ? Number(fieldOf(entry[1], 'n')) : Number((await this.#redis.get(this.#counter)) ?? 0);
    // What was announced before the stream's end is not read: an answer asked before now may not be kept.
    this.#onMissed();
    this.#live = true;
  }

  async #run(): Promise<void> {
    while (!this.#closed) {
      try {
        if (!this.#live) await this.#fromEnd();
        const answer = (await this.#redis.xread('COUNT', 1000, 'BLOCK', 1000, 'STREAMS', this.#stream, this.#lastId)) as
          | [string, StreamEntry[]][]
          | null;
        const entries = answer?.[0]?.[1] ?? [];
        if (entries.length === 0) continue;
        const signals: ChangeSignal[] = [];
        for (const [id, fields] of entries) {
          const n = Number(fieldOf(fields, 'n'));
          // A number skipped: what was kept is dropped, and reading goes on (still live: from here on nothing is
          // missed), so whoever waits for this number is answered once it is read.
          if (n !== this.#received + 1) this.#onMissed();
          this.#received = n;
          this.#lastId = id;
          signals.push({
            n,
            connectorId: fieldOf(fields, 'c'),
            entity: fieldOf(fields, 'e'),
            lastSeq: Number(fieldOf(fields, 's')),
          });
        }
        this.#onSignals(signals);
        this.#settle(true);
      } catch (error) {
        if (this.#closed) return;
        this.#live = false;
        this.#missed();
        this.#onError(error);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  #missed(): void {
    this.#onMissed();
    this.#settle(false);
  }

  #settle(caughtUp: boolean): void {
    const due = caughtUp ? this.#waiters.filter((w) => w.n <= this.#received) : this.#waiters;
    this.#waiters = caughtUp ? this.#waiters.filter((w) => w.n > this.#received) : [];
    for (const waiter of due) waiter.resolve(caughtUp);
  }
}

function fieldOf(fields: readonly string[], name: string): string {
  for (let i = 0; i < fields.length - 1; i += 2) if (fields[i] === name) return fields[i + 1]!;
  return '';
}
