import { QUOTA_NAMES, type QuotaLimits, type QuotaName } from '@conduit/config';
import type { UsageRepository } from '@conduit/db';
import { QuotaExceededError } from './quota-exceeded.ts';

/** How long a process keeps an organization's limits: an operator's change applies everywhere within this. */
export const QUOTA_CACHE_MS = 5_000;

type Repository = Pick<UsageRepository, 'quotasOf' | 'stored'>;

/** One quota's state: its limit (null: none) and what is used now. */
export interface QuotaState {
  readonly limit: number | null;
  readonly used: number;
}

/**
 * Each organization's quotas: the operator's (admin CLI `set-quota`) over the deployment's defaults
 * (QUOTA_DEFAULTS), cached for QUOTA_CACHE_MS. `checkQuota` is the one check every quota goes through.
 *
 * @example
 * await quotas.checkQuota(organizationId, 'definitions', await definitions.countOf(organizationId));
 */
export class Quotas {
  readonly #repository: Repository;
  readonly #defaults: QuotaLimits;
  readonly #now: () => number;
  readonly #cache = new Map<string, { at: number; limits: QuotaLimits; refreshing?: Promise<QuotaLimits> }>();

  constructor(repository: Repository, defaults: QuotaLimits, options: { now?: () => number } = {}) {
    this.#repository = repository;
    this.#defaults = defaults;
    this.#now = options.now ?? Date.now;
  }

  /** The organization's limits (read again once older than QUOTA_CACHE_MS). */
  async limitsOf(organizationId: string): Promise<QuotaLimits> {
    const cached = this.#cache.get(organizationId);
    if (cached && this.#now() - cached.at < QUOTA_CACHE_MS) return cached.limits;
    if (cached?.refreshing) return cached.refreshing;
    const refreshing = this.#read(organizationId);
    this.#cache.set(organizationId, { at: cached?.at ?? 0, limits: cached?.limits ?? this.#defaults, refreshing });
    try {
      return await refreshing;
    } finally {
      const entry = this.#cache.get(organizationId);
      if (entry?.refreshing === refreshing) delete entry.refreshing;
    }
  }

  /**
   * The limits as this process knows them now, without waiting: the request path's read. A stale entry is read
   * again in the background; an organization not seen yet answers undefined (and is read for next time).
   */
  knownLimitsOf(organizationId: string): QuotaLimits | undefined {
    const cached = this.#cache.get(organizationId);
    if (!cached || this.#now() - cached.at >= QUOTA_CACHE_MS) void this.limitsOf(organizationId).catch(() => undefined);
    return cached && cached.at > 0 ? cached.limits : undefined;
  }

  /**
   * Refuses one more of `quota` when `current` (what the organization has now) is at its limit: throws
   * QuotaExceededError (403 quota_exceeded; requests_per_day: 429 with Retry-After). `limitWhenUnset`: the limit
   * when neither the operator nor QUOTA_DEFAULTS sets one (a feature's own bound).
   */
  async checkQuota(organizationId: string, quota: QuotaName, current: number, limitWhenUnset?: number): Promise<void> {
    const limit = (await this.limitsOf(organizationId))[quota] ?? limitWhenUnset;
    if (limit !== undefined && current >= limit) throw new QuotaExceededError(quota, limit, current, this.#now());
  }

  /** Every quota of the organization with what is used (requests of the day from `requestsToday`). */
  async stateOf(organizationId: string, requestsToday: number): Promise<Record<QuotaName, QuotaState>> {
    const [limits, stored] = await Promise.all([
      this.limitsOf(organizationId),
      this.#repository.stored(organizationId),
    ]);
    const used: Record<QuotaName, number> = {
      connectors: stored.connectors,
      records: stored.records,
      requests_per_day: requestsToday,
      definitions: stored.definitions,
    };
    return Object.fromEntries(
      QUOTA_NAMES.map((name) => [name, { limit: limits[name] ?? null, used: used[name] }]),
    ) as Record<QuotaName, QuotaState>;
  }

  /** The organization's records quota when its copy holds as many records or more; undefined otherwise. */
  async recordsOver(organizationId: string): Promise<QuotaExceededError | undefined> {
    const limit = (await this.limitsOf(organizationId)).records;
    if (limit === undefined) return undefined;
    const { records } = await this.#repository.stored(organizationId);
    return records >= limit ? new QuotaExceededError('records', limit, records, this.#now()) : undefined;
  }

  async #read(organizationId: string): Promise<QuotaLimits> {
    const own = await this.#repository.quotasOf(organizationId);
    const limits: Partial<Record<QuotaName, number>> = { ...this.#defaults };
    for (const name of QUOTA_NAMES) if (own[name] !== undefined) limits[name] = own[name];
    this.#cache.set(organizationId, { at: this.#now(), limits });
    return limits;
  }
}
