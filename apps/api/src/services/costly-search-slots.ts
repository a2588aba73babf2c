import { randomUUID } from 'node:crypto';
import type { Logger } from '@conduit/observability';
import { type RedisClient, RedisSemaphore } from '@conduit/queues';

export interface CostlySearchSlotsOptions {
  readonly redis: RedisClient;
  readonly namespace: string;
  /** Costly searches one organization may have at once across every API instance. */
  readonly limit: number;
  /** A slot not given back after this long is free again (the engine has cancelled that search by then). */
  readonly staleMs: number;
  readonly logger: Logger;
}

/**
 * The organization's share of the engine across API instances: each instance already sends at most a few costly
 * searches at once (the search transport's lane), and this caps one organization's costly searches cluster-wide
 * (a RedisSemaphore per organization), so scaling the API out does not scale one tenant's share of the engine with
 * it. One Redis call per costly search (cheap ones never take a slot).
 */
export class CostlySearchSlots {
  readonly #slots: RedisSemaphore;
  readonly #logger: Logger;

  constructor({ redis, namespace, limit, staleMs, logger }: CostlySearchSlotsOptions) {
    this.#slots = new RedisSemaphore(redis, { prefix: `${namespace}:search:costly`, limit, staleMs });
    this.#logger = logger;
  }

  /**
   * A slot for `organizationId` (give it back with the returned function), or undefined when all are taken. Fails
   * open: with Redis unreachable the search goes on, bounded by its API instance's own lane.
   */
  async take(organizationId: string): Promise<(() => Promise<void>) | undefined> {
    const holder = randomUUID();
    let taken: boolean;
    try {
      taken = await this.#slots.take(organizationId, holder);
    } catch (error) {
      this.#logger.warn('costly search slots unavailable; the search goes on unshared', {
        error: error instanceof Error ? error.message : String(error),
      });
      return async () => undefined;
    }
    if (!taken) return undefined;
    return () => this.#slots.release(organizationId, holder);
  }
}
