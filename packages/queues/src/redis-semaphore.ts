import { readFileSync } from 'node:fs';
import type { RedisClient } from './redis-connection.ts';

/** The script's name on the client (ioredis `defineCommand`: EVALSHA, the script sent once per connection). */
const TAKE_SLOT = 'conduitTakeSlot';

interface SemaphoreCommands {
  conduitTakeSlot(
    key: string,
    now: string,
    staleBefore: string,
    holder: string,
    limit: string,
    ttl: string,
  ): Promise<number>;
}

export interface RedisSemaphoreOptions {
  /** Prefix of every semaphore's key; the semaphore's name follows it. */
  readonly prefix: string;
  /** Holders of one semaphore at once, across every process. */
  readonly limit: number;
  /** A slot neither given back nor beaten for this long is free again (its holder's process died). */
  readonly staleMs: number;
}

/**
 * Semaphores shared by every process through Redis, one per name (a connector, an organization): a sorted set of
 * holders scored by their last heartbeat, taken atomically by `lua/take-slot-1.lua`. Used for the sync's
 * connector and organization slots and for the API's costly search slots.
 *
 * @example
 * const slots = new RedisSemaphore(redis, { prefix: 'conduit:slots', limit: 2, staleMs: 120_000 });
 * if (await slots.take(connectorId, jobId)) try { ... } finally { await slots.release(connectorId, jobId); }
 */
export class RedisSemaphore {
  readonly #redis: RedisClient & SemaphoreCommands;
  readonly #options: RedisSemaphoreOptions;

  constructor(redis: RedisClient, options: RedisSemaphoreOptions) {
    if (!(options.limit >= 1) || !(options.staleMs > 0)) {
      throw new RangeError('a semaphore needs limit >= 1 and staleMs > 0');
    }
    // Defined on the client once per semaphore (a later definition of the same script replaces it, harmlessly).
    const lua = readFileSync(new URL('./lua/take-slot-1.lua', import.meta.url), 'utf8');
    redis.defineCommand(TAKE_SLOT, { numberOfKeys: 1, lua });
    this.#redis = redis as RedisClient & SemaphoreCommands;
    this.#options = options;
  }

  /** Takes a slot of `name` for `holder` (or refreshes the one it holds); false when every slot is taken. */
  async take(name: string, holder: string): Promise<boolean> {
    const { limit, staleMs } = this.#options;
    const now = Date.now();
    const taken = await this.#redis.conduitTakeSlot(
      this.#key(name),
      String(now),
      String(now - staleMs),
      holder,
      String(limit),
      String(2 * staleMs),
    );
    return taken === 1;
  }

  /** Keeps `holder`'s slot alive (a holder that stops beating loses it after `staleMs`). */
  async heartbeat(name: string, holder: string): Promise<void> {
    await this.#redis.zadd(this.#key(name), 'XX', Date.now(), holder);
  }

  async release(name: string, holder: string): Promise<void> {
    await this.#redis.zrem(this.#key(name), holder);
  }

  #key(name: string): string {
    return `${this.#options.prefix}:${name}`;
  }
}
