import type { RedisClient } from '@conduit/queues';

/** Counting windows of refused calls, in milliseconds. */
const WINDOW_MS = 60_000;
/**
 * Refused calls per window, per caller address and per connector, before the route answers 429. A vendor's genuine
 * deliveries are never refused by it (every signature is still checked), so there is nothing to tune per deployment.
 */
export const REFUSED_WEBHOOKS_PER_MINUTE = 60;

export interface RefusedWebhooksOptions {
  readonly redis: RedisClient;
  readonly namespace: string;
}

/** What to do with a refusal: the count in this window, whether to log it (a sample), and how long to back off. */
export interface Refusal {
  readonly count: number;
  readonly log: boolean;
  readonly retryAfterSeconds: number | undefined;
}

/**
 * Refused calls on the public upstream-webhook route (no bearer token: anyone can call it), counted in Redis per
 * caller address and per connector, so every API instance shares the count. Only refusals are counted, and a
 * count over its limit only changes how a refusal is answered: every call's signature is still checked, so the
 * vendor's genuine deliveries keep flowing while someone sends forgeries or junk from the same address (a proxy's,
 * or a vendor's shared egress); the refused calls get 429 with Retry-After instead of 401 or 404. Logging is
 * sampled: the first refusal of a window, then one in a hundred, each line saying how many there were.
 */
export class RefusedWebhooks {
  readonly #redis: RedisClient;
  readonly #prefix: string;

  constructor(options: RefusedWebhooksOptions) {
    this.#redis = options.redis;
    this.#prefix = `${options.namespace}:webhooks:refused`;
  }

  /** Counts a refused call from `address` (and to `connectorId`, when it exists). */
  async record(address: string, connectorId: string | undefined): Promise<Refusal> {
    const keys = [this.#key('address', address), ...(connectorId ? [this.#key('connector', connectorId)] : [])];
    // One transaction per key: the two keys may live on different Redis Cluster nodes, and only each one's own
    // counter and expiry need to change together.
    const results = await Promise.all(
      keys.map((key) =>
        // A new window starts at 0 with its expiry; INCR keeps the expiry of an existing one.
        this.#redis.multi().set(key, '0', 'PX', WINDOW_MS, 'NX').incr(key).pttl(key).exec(),
      ),
    );
    const counts = results.map((result) => Number(result?.[1]?.[1] ?? 0));
    const ttls = results.map((result) => Number(result?.[2]?.[1] ?? WINDOW_MS));
    const count = Math.max(...counts);
    const over = counts.findIndex((c) => c > REFUSED_WEBHOOKS_PER_MINUTE);
    return {
      count,
      log: count === 1 || count % 100 === 0,
      retryAfterSeconds: over === -1 ? undefined : retryAfter(ttls[over] ?? WINDOW_MS),
    };
  }

  #key(kind: 'address' | 'connector', id: string): string {
    return `${this.#prefix}:${kind}:${id}`;
  }
}

function retryAfter(ttlMs: number): number {
  return Math.max(1, Math.ceil((ttlMs > 0 ? ttlMs : WINDOW_MS) / 1000));
}
