import { readFileSync } from 'node:fs';
import { defaultSleep, UpstreamRateLimitError } from '@conduit/connectors';
import type { RedisClient } from '@conduit/queues';

/** Who is asking: a caller waiting for an answer (execute, webhook re-reads) or a sync page. */
export type BudgetLane = 'live' | 'sync';

/** What the HTTP client asks before every attempt, and tells after a rate limit (ConnectorSettings.budget). */
export interface BudgetGate {
  acquire(signal?: AbortSignal): Promise<void>;
  /** The upstream said 429 (or its own rate-limit signal), asking for `waitMs` (null: it did not say). */
  rateLimited(waitMs: number | null): Promise<void>;
}

/** GET .../{id} `rate_budget`: the limit in force, what was used in the last second, and a pause if any. */
export interface BudgetView {
  readonly limit_per_s: number;
  /** The vendor's documented limit, or learnt from its 429s. */
  readonly limit_source: 'documented' | 'learnt';
  readonly used_per_s: number;
  readonly paused_until: string | null;
}

export interface BudgetSettings {
  /** Where a learnt limit starts, and its ceiling. */
  readonly initialLearntPerSecond: number;
  readonly maxLearntPerSecond: number;
  /** A learnt limit grows by 5 % (at least 1) after this long without a 429. */
  readonly growEveryMs: number;
  /** A 429 that names no wait pauses the connector this long. */
  readonly defaultPauseMs: number;
  /**
   * A call never waits longer than this for its slot: a longer pause is handed to the caller as a rate limit with
   * Retry-After (the API's 429, a sync job delayed until then), as the HTTP client does with a long Retry-After.
   */
  readonly maxWaitMs: number;
}

const RECENT = 200;

const DEFAULTS: BudgetSettings = {
  initialLearntPerSecond: 10,
  maxLearntPerSecond: 100,
  growEveryMs: 10_000,
  defaultPauseMs: 1_000,
  maxWaitMs: 30_000,
};

/** The budget's scripts on the client (ioredis `defineCommand`: EVALSHA, each script sent once per connection). */
interface BudgetCommands {
  conduitBookSlot(...keysThenArgs: string[]): Promise<[number, number, number, number]>;
  conduitPause(...keysThenArgs: string[]): Promise<number>;
}

function defineBudgetCommands(redis: RedisClient): RedisClient & BudgetCommands {
  const lua = (name: string) => readFileSync(new URL(`./lua/${name}`, import.meta.url), 'utf8');
  redis.defineCommand('conduitBookSlot', { numberOfKeys: 4, lua: lua('book-slot-4.lua') });
  redis.defineCommand('conduitPause', { numberOfKeys: 2, lua: lua('pause-2.lua') });
  return redis as RedisClient & BudgetCommands;
}

interface BudgetKeys {
  readonly schedule: string;
  readonly pause: string;
  readonly learnt: string;
  readonly used: string;
}

/** What the budget needs to know of a connector. */
export interface BudgetSubject {
  readonly connectorId: string;
  /** The connector_type, for the metrics (which never carry connector ids). */
  readonly kind: string;
  /** The kind's documented requests per second; null: learnt. */
  readonly perSecond: number | null;
}

/**
 * One upstream budget per connector, shared through Redis by every API and worker process (docs/trusted-calls.md).
 *
 * @example
 * const gate = budgets.gate({ connectorId, perSecond: catalog.rateLimit.perSecond }, 'live');
 * await gate.acquire(signal); // then send the request
 */
export class UpstreamBudgets {
  readonly #redis: RedisClient & BudgetCommands;
  readonly #prefix: string;
  readonly #settings: BudgetSettings;
  readonly #onWait: ((lane: BudgetLane, waitMs: number) => void) | undefined;
  /** The connectors this process drew from lately (at most RECENT), for the metrics. */
  readonly #recent = new Map<string, BudgetSubject>();

  constructor(
    redis: RedisClient,
    namespace: string,
    options: { settings?: Partial<BudgetSettings>; onWait?: (lane: BudgetLane, waitMs: number) => void } = {},
  ) {
    this.#redis = defineBudgetCommands(redis);
    // One hash tag per connector keeps its keys in one slot (Redis Cluster runs the scripts).
    this.#prefix = `${namespace}:budget`;
    this.#settings = { ...DEFAULTS, ...options.settings };
    this.#onWait = options.onWait;
  }

  gate(subject: BudgetSubject, lane: BudgetLane): BudgetGate {
    const keys = this.#keys(subject.connectorId);
    this.#recent.delete(subject.connectorId);
    this.#recent.set(subject.connectorId, subject);
    if (this.#recent.size > RECENT) this.#recent.delete(this.#recent.keys().next().value!);
    return {
      acquire: async (signal) => {
        // The waits the budget assigns (from Redis' clock), not the wall time around them: what a call waits for
        // its slot, without the round trips and timer lag of a busy process.
        let assignedMs = 0;
        for (;;) {
          const [booked, waitMs] = await this.#book(keys, subject, lane);
          if (waitMs > this.#settings.maxWaitMs) {
            throw new UpstreamRateLimitError(
              'the upstream rate limit paused this connector',
              Math.max(1, Math.ceil(waitMs / 1000)),
            );
          }
          if (booked === 1) {
            if (waitMs > 0) await defaultSleep(waitMs, signal);
            assignedMs += Math.max(0, waitMs);
            break;
          }
          // Paused, or (sync) no free slot now: try again when the next one is due.
          await defaultSleep(Math.max(1, waitMs), signal);
          assignedMs += Math.max(1, waitMs);
        }
        this.#onWait?.(lane, assignedMs);
      },
      rateLimited: async (waitMs) => {
        await this.#redis.conduitPause(
          keys.pause,
          keys.learnt,
          String(Math.max(1, Math.round(waitMs ?? this.#settings.defaultPauseMs))),
          subject.perSecond === null ? '1' : '0',
          String(this.#settings.initialLearntPerSecond),
        );
      },
    };
  }

  /** The budgets of the connectors this process used lately, with their kind. */
  async recentViews(): Promise<{ kind: string; view: BudgetView }[]> {
    return Promise.all(
      [...this.#recent.values()].map(async (subject) => ({ kind: subject.kind, view: await this.view(subject) })),
    );
  }

  async view(subject: BudgetSubject): Promise<BudgetView> {
    const keys = this.#keys(subject.connectorId);
    const [time, pause, learnt] = await Promise.all([
      this.#redis.time(),
      this.#redis.get(keys.pause),
      this.#redis.hget(keys.learnt, 'limit'),
    ]);
    const now = Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000);
    const used = Number((await this.#redis.get(`${keys.used}${Math.floor(now / 1000) - 1}`)) ?? 0);
    const pausedUntil = Number(pause ?? 0);
    return {
      limit_per_s: subject.perSecond ?? Number(learnt ?? this.#settings.initialLearntPerSecond),
      limit_source: subject.perSecond === null ? 'learnt' : 'documented',
      used_per_s: used,
      paused_until: pausedUntil > now ? new Date(pausedUntil).toISOString() : null,
    };
  }

  #keys(connectorId: string): BudgetKeys {
    const base = `${this.#prefix}:{${connectorId}}`;
    return { schedule: `${base}:tat`, pause: `${base}:pause`, learnt: `${base}:learnt`, used: `${base}:used:` };
  }

  async #book(keys: BudgetKeys, subject: BudgetSubject, lane: BudgetLane) {
    return this.#redis.conduitBookSlot(
      keys.schedule,
      keys.pause,
      keys.learnt,
      keys.used,
      String(subject.perSecond ?? 0),
      lane,
      String(this.#settings.initialLearntPerSecond),
      String(this.#settings.maxLearntPerSecond),
      String(this.#settings.growEveryMs),
    );
  }
}
