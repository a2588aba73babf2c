import type { ChangeEventRow, ChangeFeedRepository } from '@conduit/db';

/** One event as the streams send it, formatted and encoded once for all of them. */
export interface TailedEvent {
  readonly seq: number;
  readonly entity: string;
  readonly message: Buffer;
}

/** What a stream gets from the tail: the events after its cursor, through a new cursor. */
export interface TailBatch {
  readonly events: readonly TailedEvent[];
  /** Every event of the connector up to this number is in `events` (those of the stream's entity) or before it. */
  readonly through: number;
}

export interface FeedTailsOptions {
  readonly feed: Pick<ChangeFeedRepository, 'head' | 'read'>;
  readonly format: (connectorId: string, event: ChangeEventRow) => string;
  /** How often a tail with streams waiting looks at the feed's head. */
  readonly pollMs: number;
  /** Events kept per connector for streams a little behind (a slow reader, a burst). */
  readonly keep?: number;
  /** Events read from the feed at a time. */
  readonly batch?: number;
}

interface Waiter {
  readonly after: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * The newest events of one connector's feed, read once for every stream open on it in this process. `from` and
 * `position` bound what `events` holds: every event numbered after `from` up to `position`.
 */
class Tail {
  events: TailedEvent[] = [];
  from = 0;
  position = 0;
  started = false;
  waiters = new Set<Waiter>();
  /** Polls in a row that found no stream waiting: the tail is dropped after two. */
  idlePolls = 0;
}

/**
 * The change streams' reads of the feed (GET .../changes/stream, docs/changes.md), shared: every stream open on a
 * connector in this API process waits on one tail, which reads the feed's head once a poll and each new event once,
 * formatted once, however many dashboards follow the connector. A stream further behind than the tail's events
 * reads the feed itself (`undefined` from `next`) until it reaches them. A tail nobody waits on stops.
 */
export class FeedTails {
  readonly #tails = new Map<string, Tail>();
  readonly #options: Required<FeedTailsOptions>;

  constructor(options: FeedTailsOptions) {
    this.#options = { keep: 2000, batch: 200, ...options };
  }

  /**
   * The events of `connectorId` after `after` (of `entity` when given), once there are some or `waitMs` passed
   * (none then); `undefined` when the tail does not reach back to `after`: the caller reads the feed itself.
   */
  async next(
    connectorId: string,
    after: number,
    entity: string | undefined,
    waitMs: number,
    signal: AbortSignal,
  ): Promise<TailBatch | undefined> {
    const tail = await this.#tail(connectorId);
    if (after < tail.from) return undefined;
    if (tail.position <= after) await this.#wait(connectorId, tail, after, waitMs, signal);
    if (after < tail.from) return undefined;
    const events = tail.events.filter((e) => e.seq > after && (entity === undefined || e.entity === entity));
    return { events, through: Math.max(after, tail.position) };
  }

  async #tail(connectorId: string): Promise<Tail> {
    let tail = this.#tails.get(connectorId);
    if (!tail) {
      tail = new Tail();
      this.#tails.set(connectorId, tail);
    }
    if (!tail.started) {
      // The tail starts at the head: what a stream asks for before it, it reads from the feed itself.
      const { lastSeq } = await this.#options.feed.head(connectorId);
      if (!tail.started) {
        tail.started = true;
        tail.from = lastSeq;
        tail.position = lastSeq;
        this.#schedule(connectorId, tail);
      }
    }
    return tail;
  }

  #wait(connectorId: string, tail: Tail, after: number, waitMs: number, signal: AbortSignal): Promise<void> {
    // A tail dropped meanwhile (idle, or its read failed) moves no more: the caller asks again.
    if (this.#tails.get(connectorId) !== tail || signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const settle = (error?: unknown) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        tail.waiters.delete(waiter);
        if (error === undefined) resolve();
        else reject(error);
      };
      const onAbort = () => settle();
      const waiter: Waiter = { after, resolve: () => settle(), reject: (error) => settle(error) };
      const timer = setTimeout(onAbort, waitMs);
      signal.addEventListener('abort', onAbort, { once: true });
      tail.waiters.add(waiter);
    });
  }

  #schedule(connectorId: string, tail: Tail): void {
    // Not keeping the process alive: a tail lives only while streams wait on it.
    setTimeout(() => void this.#poll(connectorId, tail), this.#options.pollMs).unref();
  }

  async #poll(connectorId: string, tail: Tail): Promise<void> {
    if (tail.waiters.size === 0 && ++tail.idlePolls >= 2) {
      this.#tails.delete(connectorId);
      return;
    }
    if (tail.waiters.size > 0) tail.idlePolls = 0;
    try {
      const { lastSeq } = await this.#options.feed.head(connectorId);
      // Appends of one connector commit in order (docs/changes.md), so every event up to the head is readable.
      while (tail.position < lastSeq) {
        const read = await this.#options.feed.read(connectorId, { after: tail.position, limit: this.#options.batch });
        for (const event of read) {
          const message = Buffer.from(this.#options.format(connectorId, event));
          tail.events.push({ seq: event.seq, entity: event.entity, message });
        }
        // Events appended since the head was read may come too (never one without those before it).
        const last = read.at(-1)?.seq ?? tail.position;
        tail.position = read.length < this.#options.batch ? Math.max(lastSeq, last) : last;
      }
      const over = tail.events.length - this.#options.keep;
      if (over > 0) {
        tail.from = tail.events[over - 1]!.seq;
        tail.events = tail.events.slice(over);
      }
      for (const waiter of [...tail.waiters]) if (tail.position > waiter.after) waiter.resolve();
    } catch (error) {
      // The streams waiting end (their clients resume from their last event); a new tail starts for the next.
      this.#tails.delete(connectorId);
      for (const waiter of [...tail.waiters]) waiter.reject(error);
      return;
    }
    this.#schedule(connectorId, tail);
  }
}
