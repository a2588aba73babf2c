import type { ConnectorRow, ConnectorsRepository } from '@conduit/db';
import type { Logger } from '@conduit/observability';
import { connectorChangesChannel, duplicateRedis, type RedisClient } from '@conduit/queues';

/** Safety net only: PATCH and DELETE invalidate every instance at once through Redis (below). */
const DEFAULT_TTL_MS = 10_000;
const CAPACITY = 10_000;

interface Entry {
  readonly row: ConnectorRow;
  readonly expiresAtMs: number;
  /** Per entity, the end of its last completed pass (a pending read is shared by the searches that wait on it). */
  readonly syncedAt: Map<string, Promise<Date | null>>;
}

/**
 * The connector row for the search hot path, and the end of each entity's last completed pass (meta.synced_at),
 * remembered briefly so a search does not wait on Postgres. Every API instance subscribes to one Redis channel;
 * PATCH and DELETE publish the connector id after the database change, as the worker does after recording a
 * finished run, and every instance forgets it. While the subscription is not live (starting, reconnecting), nothing is
 * remembered, so a missed message can never leave a stale row behind. Only rows that exist are remembered: a
 * connector created on another instance is found at once.
 */
export class ConnectorCache {
  readonly #connectors: ConnectorsRepository;
  readonly #publisher: RedisClient;
  readonly #subscriber: RedisClient;
  readonly #channel: string;
  readonly #ttlMs: number;
  readonly #onForget: (id: string) => void;
  readonly #entries = new Map<string, Entry>();
  /** Bumped by every invalidation, so a lookup that raced one does not store what it read before it. */
  #generation = 0;
  #live = false;

  private constructor(
    connectors: ConnectorsRepository,
    publisher: RedisClient,
    channel: string,
    ttlMs: number,
    logger: Logger,
    onForget: (id: string) => void,
  ) {
    this.#onForget = onForget;
    this.#connectors = connectors;
    this.#publisher = publisher;
    this.#channel = channel;
    this.#ttlMs = ttlMs;
    this.#subscriber = duplicateRedis(publisher);
    this.#subscriber.on('message', (_channel: string, id: string) => this.#forget(id));
    // Anything that may have cost us messages: forget everything and stop remembering until subscribed again.
    const down = () => {
      this.#live = false;
      this.#forgetAll();
    };
    this.#subscriber.on('close', down);
    this.#subscriber.on('reconnecting', down);
    this.#subscriber.on('error', (error: Error) => {
      down();
      logger.warn('connector cache subscription error', { error: error.message });
    });
    // ioredis subscribes again by itself after a reconnect, then reports ready.
    this.#subscriber.on('ready', () => {
      this.#forgetAll();
      this.#live = this.#subscriber.status === 'ready';
    });
  }

  static async start(
    connectors: ConnectorsRepository,
    redis: RedisClient,
    options: { namespace: string; logger: Logger; ttlMs?: number; onForget?: (id: string) => void },
  ): Promise<ConnectorCache> {
    const cache = new ConnectorCache(
      connectors,
      redis,
      connectorChangesChannel(options.namespace),
      options.ttlMs ?? DEFAULT_TTL_MS,
      options.logger,
      options.onForget ?? (() => undefined),
    );
    await cache.#subscriber.subscribe(cache.#channel);
    cache.#live = true;
    return cache;
  }

  /** Like ConnectorsRepository.find: the organization's connector, or undefined (another organization's too). */
  async find(organizationId: string, id: string): Promise<ConnectorRow | undefined> {
    const entry = this.#entries.get(id);
    if (entry && Date.now() < entry.expiresAtMs) {
      return entry.row.organization_id === organizationId ? entry.row : undefined;
    }
    const generation = this.#generation;
    const row = await this.#connectors.find(organizationId, id);
    if (row && this.#live && generation === this.#generation) {
      if (this.#entries.size >= CAPACITY) this.#forgetAll();
      this.#entries.set(id, { row, expiresAtMs: Date.now() + this.#ttlMs, syncedAt: new Map() });
    }
    return row;
  }

  /**
   * When `entity` of connector `id` last completed a pass: remembered beside the connector's row (only while that
   * row is), read with `read` otherwise. A failed read is not remembered.
   */
  syncedAt(id: string, entity: string, read: () => Promise<Date | null>): Promise<Date | null> {
    const entry = this.#entries.get(id);
    if (!entry || Date.now() >= entry.expiresAtMs) return read();
    const known = entry.syncedAt.get(entity);
    if (known) return known;
    const pending = read();
    entry.syncedAt.set(entity, pending);
    pending.catch(() => entry.syncedAt.delete(entity));
    return pending;
  }

  /** Whether the row of `id` is remembered right now (for tests). */
  has(id: string): boolean {
    return this.#entries.has(id);
  }

  /** After a connector changed or was deleted (in the database): every instance forgets it. */
  async invalidate(id: string): Promise<void> {
    this.#forget(id);
    await this.#publisher.publish(this.#channel, id);
  }

  async close(): Promise<void> {
    this.#live = false;
    this.#forgetAll();
    this.#subscriber.disconnect();
  }

  #forget(id: string): void {
    this.#generation++;
    this.#entries.delete(id);
    this.#onForget(id);
  }

  #forgetAll(): void {
    this.#generation++;
    this.#entries.clear();
  }
}
