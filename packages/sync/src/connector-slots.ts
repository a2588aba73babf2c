import type { RedisClient } from '@conduit/queues';

/**
 * A cap on concurrent entity runs per key, shared by every worker through Redis: per connector, and per
 * organization (another prefix), so one tenant cannot take every worker slot.
 * Slots are members of a sorted set scored by their last heartbeat; a slot of a crashed worker
 * expires after `staleMs` without a heartbeat.
 */
export class ConnectorSlots {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #limit: number;
  readonly #staleMs: number;

  constructor(redis: RedisClient, prefix: string, limit: number, staleMs = 120_000) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#limit = limit;
    this.#staleMs = staleMs;
  }

  async tryAcquire(connectorId: string, holder: string): Promise<boolean> {
    const key = this.#key(connectorId);
    const now = Date.now();
    const acquired = await this.#redis.eval(
      `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
       if redis.call('ZSCORE', KEYS[1], ARGV[3]) then redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3]) return 1 end
       if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
       redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
       redis.call('PEXPIRE', KEYS[1], ARGV[5])
       return 1`,
      1,
      key,
      String(now - this.#staleMs),
      String(now),
      holder,
      String(this.#limit),
      String(this.#staleMs * 2),
    );
    return acquired === 1;
  }

  async heartbeat(connectorId: string, holder: string): Promise<void> {
    await this.#redis.zadd(this.#key(connectorId), 'XX', Date.now(), holder);
  }

  async release(connectorId: string, holder: string): Promise<void> {
    await this.#redis.zrem(this.#key(connectorId), holder);
  }

  #key(connectorId: string): string {
    return `${this.#prefix}:slots:${connectorId}`;
  }
}
