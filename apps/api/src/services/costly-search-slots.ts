import { randomUUID } from 'node:crypto';
import type { RedisClient } from '@conduit/queues';

/**
 * Takes a slot when fewer than `limit` live ones are held (members of a sorted set scored by when they were taken;
 * a slot older than the stale time, of an instance that died mid-search, no longer counts).
 * KEYS[1] the organization's set; ARGV: now ms, stale-before ms, holder, limit, key ttl ms. Answers 1 or 0.
 */
const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

export interface CostlySearchSlotsOptions {
  readonly redis: RedisClient;
  readonly namespace: string;
  /** Costly searches one organization may have at once across every API instance. */
  readonly limit: number;
  /** A slot not given back after this long is free again (the engine has cancelled that search by then). */
  readonly staleMs: number;
}

/**
 * The organization's share of the engine across API instances: each instance already sends at most a few costly
 * searches at once (the search transport's lane), and this caps one organization's costly searches cluster-wide,
 * so scaling the API out does not scale one tenant's share of the engine with it. One Redis call per costly
 * search (cheap ones never take a slot).
 */
export class CostlySearchSlots {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #limit: number;
  readonly #staleMs: number;

  constructor({ redis, namespace, limit, staleMs }: CostlySearchSlotsOptions) {
    this.#redis = redis;
    this.#prefix = `${namespace}:search:costly`;
    this.#limit = limit;
    this.#staleMs = staleMs;
  }

  /**
   * A slot for `organizationId` (give it back with the returned function), or undefined when all are taken. Fails
   * open: with Redis unreachable the search goes on, bounded by its API instance's own lane.
   */
  async take(organizationId: string): Promise<(() => Promise<void>) | undefined> {
    const key = `${this.#prefix}:${organizationId}`;
    const holder = randomUUID();
    const now = Date.now();
    let taken: unknown;
    try {
      taken = await this.#redis.eval(
        TAKE,
        1,
        key,
        String(now),
        String(now - this.#staleMs),
        holder,
        String(this.#limit),
        String(2 * this.#staleMs),
      );
    } catch {
      return async () => undefined;
    }
    if (taken !== 1) return undefined;
    return async () => {
      await this.#redis.zrem(key, holder);
    };
  }
}
