import type { ChangeFeedRepository } from '@conduit/db';
import { duplicateRedis, type RedisClient } from '@conduit/queues';
import type { FilterNode } from '@conduit/search-dsl';
import { LRUCache } from 'lru-cache';
import { asHit, etagOf, missMeta, noneMatchHas } from './answer-tags.ts';
import { changeConcerns } from './change-concerns.ts';
import { type ChangeSignal, ChangeSignals, type SignalPosition, SignalReader } from './change-signals.ts';

/** Bytes of answers one API process keeps (bodies and keys); the least recently asked go first. */
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
/** An answer larger than this share of the cache is not kept: it would push out many dashboards' panels. */
const LARGEST_SHARE = 8;
/** What an entry costs beyond its body and key (the entry, its filter, the map slots), roughly. */
const ENTRY_OVERHEAD = 512;
/**
 * Changes read at once to check an entity's kept answers; more than this since an answer was kept, and it is
 * dropped instead (computing it again costs one search; reading and testing more changes would cost more).
 */
const MAX_CHANGES_READ = 5000;
/**
 * How long a hit waits for this instance to have read the announcements made before it was asked (one blocking
 * read away, a few milliseconds unless the machine is very busy); then it is computed instead.
 */
const CATCH_UP_MS = 1000;

/** The connector and entity an answer is about: the unit of announcements and of refreshes. */
export interface AnswerScope {
  readonly connectorId: string;
  readonly entity: string;
}

/** One search or SQL question. */
export interface Question {
  readonly scope: AnswerScope;
  /**
   * The normalised question, with everything its answer depends on besides the copy (organization, connector and
   * its kind, entity, catalog, params or SQL text); undefined: its answer is never kept (docs/architecture.md).
   */
  readonly key: string | undefined;
  /** The records the answer is computed from are those matching this filter (for a kept answer). */
  readonly filter: FilterNode | undefined;
  /** The request's `If-None-Match`. */
  readonly ifNoneMatch?: string | undefined;
}

/** A 200 with its body (its `meta` carries `as_of` and `cache`), or a 304 for an ETag the caller named. */
export type Answer =
  | { readonly status: 200; readonly body: Buffer<ArrayBuffer>; readonly etag: string; readonly cache: 'hit' | 'miss' }
  | { readonly status: 304; readonly etag: string };

/** The meta an answer is computed with (written last in its `meta`). */
export type AnswerMeta = ReturnType<typeof missMeta>;

interface Entry {
  readonly scope: string;
  readonly filter: FilterNode;
  /** The answer as served from memory (`"cache":"hit"`). */
  readonly body: Buffer<ArrayBuffer>;
  readonly etag: string;
  /** Every change of its connector up to this number is known not to alter the answer. */
  checked: number;
}

export interface AnswerCacheOptions {
  readonly redis: RedisClient;
  readonly namespace: string;
  readonly feed: Pick<ChangeFeedRepository, 'head' | 'readWithPrior'>;
  /** `ANSWER_CACHE=off`: every answer is computed (still with `as_of` and an ETag). */
  readonly enabled: boolean;
  readonly onError?: (error: unknown) => void;
  /** Another byte budget (tests). */
  readonly maxBytes?: number;
}

/**
 * Search and SQL answers kept in the API's memory, exact (docs/architecture.md, "The answer cache"). Every answer gets
 * `meta.as_of`, a feed cursor it reflects (the head announced before the question, after a refresh of the entity's
 * index that began later, unless one already did), and a weak ETag. A kept answer is served while no change
 * announced since its `as_of` could alter it: the instance reads every announcement (ChangeSignals) and the
 * changes they name, with the records they replaced, and drops the answers whose filter either record matches. A
 * hit first waits until this instance has read every announcement made before it was asked, so it never lags a
 * change whose append finished before it; an instance that may have missed one drops everything it holds.
 */
export class AnswerCache {
  readonly #signals: ChangeSignals;
  readonly #reader: SignalReader | undefined;
  readonly #feed: AnswerCacheOptions['feed'];
  readonly #onError: (error: unknown) => void;
  readonly #entries: LRUCache<string, Entry>;
  /** Keys of the kept answers of each scope. */
  readonly #byScope = new Map<string, Set<string>>();
  /** Per scope, the last change announced (since the reader last started). */
  readonly #known = new Map<string, number>();
  /** Per scope, a head every change up to which the entity's index was refreshed after. */
  readonly #reflected = new Map<string, number>();
  readonly #checking = new Map<string, Promise<void>>();
  /** Answers being computed to be kept, by key: the same question asked meanwhile waits for it (not the engine). */
  readonly #computing = new Map<string, Promise<unknown>>();
  readonly #again = new Set<string>();
  /** Bumped whenever everything is dropped: an answer computed across it is not kept. */
  #generation = 0;
  /** Per connector, bumped when its answers are forgotten: an answer computed across it is not kept. */
  readonly #forgotten = new Map<string, number>();

  private constructor(options: AnswerCacheOptions) {
    this.#signals = new ChangeSignals(options.redis, options.namespace);
    this.#feed = options.feed;
    this.#onError = options.onError ?? (() => undefined);
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.#entries = new LRUCache<string, Entry>({
      maxSize: maxBytes,
      maxEntrySize: Math.floor(maxBytes / LARGEST_SHARE),
      sizeCalculation: (entry, key) => entry.body.length + 2 * key.length + ENTRY_OVERHEAD,
      dispose: (entry, key) => this.#byScope.get(entry.scope)?.delete(key),
    });
    this.#reader = options.enabled
      ? new SignalReader(duplicateRedis(options.redis), options.namespace, {
          onSignals: (signals) => this.#received(signals),
          onMissed: () => this.#dropAll(),
          onError: this.#onError,
        })
      : undefined;
  }

  /** Starts reading announcements (when enabled). */
  static async start(options: AnswerCacheOptions): Promise<AnswerCache> {
    const cache = new AnswerCache(options);
    await cache.#reader?.start();
    return cache;
  }

  /**
   * The answer to `question`: kept, or computed by `compute` (given the meta to write last; `keep: false` when the
   * body is not the whole answer) after `refresh` made the entity's index show every change up to `as_of`. A 304
   * when `If-None-Match` names its ETag; for a kept answer the engine is not asked at all.
   */
  async answer(
    question: Question,
    compute: (meta: AnswerMeta) => Promise<{ readonly body: Buffer<ArrayBuffer>; readonly keep?: boolean }>,
    refresh: () => Promise<void>,
  ): Promise<Answer> {
    const scope = scopeKey(question.scope);
    const generation = this.#generationOf(question.scope.connectorId);
    const position = await this.#signals.position(question.scope.connectorId).catch((error: unknown) => {
      this.#onError(error);
      return undefined;
    });
    const key = this.#reader && position ? question.key : undefined;
    if (key !== undefined && position) {
      const kept = await this.#hit(key, scope, position);
      if (kept) return answerOf(kept.body, kept.etag, 'hit', question.ifNoneMatch);
      // Many viewers ask a dropped panel again at once: one computes it, the others are served what it keeps, once
      // that is checked through the changes announced before their own question (as any hit).
      const computing = this.#computing.get(key);
      if (computing) {
        await computing.catch(() => undefined);
        const joined = await this.#hit(key, scope, position);
        if (joined) return answerOf(joined.body, joined.etag, 'hit', question.ifNoneMatch);
      }
    }
    const computed = this.#compute(question, key, scope, generation, position, compute, refresh);
    if (key !== undefined && !this.#computing.has(key)) {
      this.#computing.set(key, computed);
      void computed.then(
        () => this.#computing.get(key) === computed && this.#computing.delete(key),
        () => this.#computing.get(key) === computed && this.#computing.delete(key),
      );
    }
    const { body, etag } = await computed;
    return answerOf(body, etag, 'miss', question.ifNoneMatch);
  }

  /** After the entity's last pass completed (`meta.synced_at` moved): its connector's answers are dropped. */
  forgetConnector(connectorId: string): void {
    this.#forgotten.set(connectorId, (this.#forgotten.get(connectorId) ?? 0) + 1);
    for (const [scope, keys] of this.#byScope) {
      if (!scope.startsWith(`${connectorId}\n`)) continue;
      for (const key of [...keys]) this.#entries.delete(key);
    }
  }

  async close(): Promise<void> {
    await this.#reader?.close();
    this.#dropAll();
  }

  /** Computes the answer as of the head announced before the question (after a refresh), and keeps it. */
  async #compute(
    question: Question,
    key: string | undefined,
    scope: string,
    generation: string,
    position: SignalPosition | undefined,
    compute: (meta: AnswerMeta) => Promise<{ readonly body: Buffer<ArrayBuffer>; readonly keep?: boolean }>,
    refresh: () => Promise<void>,
  ): Promise<{ readonly body: Buffer<ArrayBuffer>; readonly etag: string }> {
    const asOf = position?.head ?? (await this.#feedHead(question.scope.connectorId, position !== undefined));
    await this.#reflect(scope, asOf, refresh);
    const { body, keep = true } = await compute(missMeta(asOf));
    const etag = etagOf(body);
    if (key !== undefined && keep && question.filter) {
      this.#keep(key, scope, question.filter, asOf, generation, body, etag);
    }
    return { body, etag };
  }

  /** The feed's head from Postgres; given to Redis for the next questions when it answered (`seed`). */
  async #feedHead(connectorId: string, seed: boolean): Promise<number> {
    const { lastSeq } = await this.#feed.head(connectorId);
    if (seed) await this.#signals.seedHead(connectorId, lastSeq).catch(this.#onError);
    return lastSeq;
  }

  async #hit(key: string, scope: string, position: SignalPosition): Promise<Entry | undefined> {
    const reader = this.#reader;
    if (!reader || !this.#entries.has(key)) return undefined;
    const { announced, head } = position;
    if (reader.received < announced && !(await reader.whenReceived(announced, CATCH_UP_MS))) return undefined;
    // The changes of its scope announced before the question was asked: the answer is served once it has been
    // checked through them. Each has a number up to the head read with the question (the announcement sets both at
    // once), and this instance has read them all. Changes announced later are not waited for: with changes arriving
    // all the time, the latest one would never have been checked yet, and the answer is exact as of the question
    // either way. A check running now may have started before them; the one after it covers them.
    const needed = Math.min(this.#known.get(scope) ?? 0, head ?? Number.POSITIVE_INFINITY);
    for (let round = 0; ; round++) {
      const entry = this.#entries.peek(key);
      if (!reader.live || !entry) return undefined;
      if (entry.checked >= needed) return this.#entries.get(key);
      if (round === 2) return undefined;
      if (!this.#checking.has(scope)) this.#check(scope);
      await this.#checking.get(scope);
    }
  }

  async #reflect(scope: string, asOf: number, refresh: () => Promise<void>): Promise<void> {
    if (asOf <= (this.#reflected.get(scope) ?? -1)) return;
    await refresh();
    this.#reflected.set(scope, Math.max(this.#reflected.get(scope) ?? -1, asOf));
  }

  #keep(
    key: string,
    scope: string,
    filter: FilterNode,
    asOf: number,
    generation: string,
    body: Buffer,
    etag: string,
  ): void {
    if (!this.#reader?.live || generation !== this.#generationOf(scope.slice(0, scope.indexOf('\n')))) return;
    const hit = asHit(body);
    if (!hit) return;
    this.#entries.set(key, { scope, filter, body: hit, etag, checked: asOf });
    if (!this.#entries.has(key)) return;
    let keys = this.#byScope.get(scope);
    if (!keys) {
      keys = new Set();
      this.#byScope.set(scope, keys);
    }
    keys.add(key);
    // Announced while it was computed: checked before it is served.
    if ((this.#known.get(scope) ?? 0) > asOf) this.#check(scope);
  }

  #received(signals: readonly ChangeSignal[]): void {
    for (const signal of signals) {
      const scope = scopeKey(signal);
      if (signal.lastSeq > (this.#known.get(scope) ?? 0)) this.#known.set(scope, signal.lastSeq);
      if (this.#byScope.get(scope)?.size) this.#check(scope);
    }
  }

  /** Checks the scope's answers against the changes announced since each was checked (one check at a time). */
  #check(scope: string): void {
    if (this.#checking.has(scope)) {
      this.#again.add(scope);
      return;
    }
    const running = this.#checkNow(scope)
      .catch((error: unknown) => {
        this.#onError(error);
        this.#dropScope(scope);
      })
      .finally(() => {
        this.#checking.delete(scope);
        if (this.#again.delete(scope)) this.#check(scope);
      });
    this.#checking.set(scope, running);
  }

  async #checkNow(scope: string): Promise<void> {
    const target = this.#known.get(scope) ?? 0;
    const generation = this.#generation;
    const behind: [string, Entry][] = [];
    for (const key of this.#byScope.get(scope) ?? []) {
      const entry = this.#entries.peek(key);
      if (entry && entry.checked < target) behind.push([key, entry]);
    }
    if (behind.length === 0) return;
    const after = Math.min(...behind.map(([, entry]) => entry.checked));
    const [connectorId, entity] = scope.split('\n') as [string, string];
    const changes = await this.#feed.readWithPrior(connectorId, entity, {
      after,
      through: target,
      limit: MAX_CHANGES_READ + 1,
    });
    if (generation !== this.#generation) return;
    const complete = changes.length <= MAX_CHANGES_READ;
    for (const [key, entry] of behind) {
      if (this.#entries.peek(key) !== entry) continue;
      const altered =
        !complete || changes.some((change) => change.seq > entry.checked && changeConcerns(entry.filter, change));
      if (altered) this.#entries.delete(key);
      else entry.checked = Math.max(entry.checked, target);
    }
  }

  /** What must not change while an answer is computed for it to be kept. */
  #generationOf(connectorId: string): string {
    return `${this.#generation}.${this.#forgotten.get(connectorId) ?? 0}`;
  }

  #dropScope(scope: string): void {
    for (const key of [...(this.#byScope.get(scope) ?? [])]) this.#entries.delete(key);
  }

  #dropAll(): void {
    this.#generation++;
    this.#entries.clear();
    this.#byScope.clear();
    this.#known.clear();
  }
}

function scopeKey(scope: AnswerScope): string {
  return `${scope.connectorId}\n${scope.entity}`;
}

function answerOf(
  body: Buffer<ArrayBuffer>,
  etag: string,
  cache: 'hit' | 'miss',
  ifNoneMatch: string | undefined,
): Answer {
  return noneMatchHas(ifNoneMatch, etag) ? { status: 304, etag } : { status: 200, body, etag, cache };
}
