import type { ClientAccess, ClientsRepository } from '@conduit/db';
import type { Logger } from '@conduit/observability';
// The narrow entry point: the package's index loads BullMQ, which the admin CLI (a user of this module) needs not.
import { duplicateRedis, type RedisClient } from '@conduit/queues/redis-connection';

/**
 * How long an instance trusts what it read of a client. A revocation reaches every instance at once through
 * Redis (below); this bounds it when the message is lost (an instance reconnecting, an admin command that could
 * not reach Redis): a revoked token is refused within this long, well inside the promised 5 s.
 */
const DEFAULT_TTL_MS = 2_000;
const CAPACITY = 10_000;
/**
 * A token newer than what an instance remembers (issued after a rotation this instance has not heard of yet)
 * makes it read the client again, at most this often, so a fresh token works at once everywhere.
 */
const REREAD_MS = 100;

/** Redis channel carrying a client id whenever its tokens were revoked (secret rotated, client deleted). */
export function clientAccessChannel(namespace: string): string {
  return `${namespace}:clients:revoked`;
}

interface Entry {
  readonly access: Promise<ClientAccess | undefined>;
  readonly readAtMs: number;
  /** What the read found, once it has (generations only grow, see the token_generation migration). */
  known?: ClientAccess | undefined;
  settled: boolean;
}

/**
 * Every authenticated request checks its token's generation against the client's current one, and its
 * organization against the client's current grants. Read from Postgres at most once per client per TTL per
 * instance (concurrent requests share the read), so the hot path stays one map lookup.
 */
export class ClientAccessCache {
  readonly #clients: Pick<ClientsRepository, 'access'>;
  readonly #subscriber: RedisClient;
  readonly #ttlMs: number;
  readonly #entries = new Map<string, Entry>();

  private constructor(clients: Pick<ClientsRepository, 'access'>, redis: RedisClient, ttlMs: number, logger: Logger) {
    this.#clients = clients;
    this.#ttlMs = ttlMs;
    this.#subscriber = duplicateRedis(redis);
    this.#subscriber.on('message', (_channel: string, clientId: string) => this.#entries.delete(clientId));
    // Messages may have been lost while down: start over (the TTL bounds the gap either way).
    this.#subscriber.on('ready', () => this.#entries.clear());
    this.#subscriber.on('error', (error: Error) =>
      logger.warn('client access subscription error', { error: error.message }),
    );
  }

  static async start(
    clients: Pick<ClientsRepository, 'access'>,
    redis: RedisClient,
    options: { namespace: string; logger: Logger; ttlMs?: number },
  ): Promise<ClientAccessCache> {
    const cache = new ClientAccessCache(clients, redis, options.ttlMs ?? DEFAULT_TTL_MS, options.logger);
    await cache.#subscriber.subscribe(clientAccessChannel(options.namespace));
    return cache;
  }

  /**
   * The client's current token generation and organizations; undefined when the client no longer exists.
   * `generation` is the token's: one newer than what is remembered means the memory is behind.
   */
  get(clientId: string, generation: number): Promise<ClientAccess | undefined> {
    const now = Date.now();
    const entry = this.#entries.get(clientId);
    if (entry && now < entry.readAtMs + this.#ttlMs) {
      const behind = entry.settled && (entry.known?.token_generation ?? 0) < generation;
      if (!behind || now < entry.readAtMs + REREAD_MS) return entry.access;
    }
    if (this.#entries.size >= CAPACITY) this.#entries.clear();
    const access = this.#clients.access(clientId);
    const fresh: Entry = { access, readAtMs: now, settled: false };
    this.#entries.set(clientId, fresh);
    access.then(
      (known) => {
        fresh.known = known;
        fresh.settled = true;
      },
      // A failed read is not remembered: the next request tries again.
      () => {
        if (this.#entries.get(clientId) === fresh) this.#entries.delete(clientId);
      },
    );
    return access;
  }

  async close(): Promise<void> {
    this.#entries.clear();
    this.#subscriber.disconnect();
  }
}
