import type { UsageIncrement, UsageRepository } from '@conduit/db';
import { API_METRICS, dayOf, hourOf, type UsageMetric } from './usage-metrics.ts';

export interface UsageMeterOptions {
  /** How often the counters go to Postgres (ms). */
  readonly flushMs?: number;
  readonly now?: () => number;
  readonly onError?: (error: unknown) => void;
}

/** The counters' flush period: a crashed process loses at most this much of its counting. */
export const USAGE_FLUSH_MS = 5_000;

type Repository = Pick<UsageRepository, 'add' | 'totalsSince'>;

/**
 * Counts usage in memory and adds it to Postgres every few seconds, one upsert per (organization, connector, hour,
 * metric): counting is a map update, so no call waits on it. It also knows each organization's requests of the day
 * (every process's, as of its last flush, plus its own since) for the requests_per_day quota without a round trip.
 */
export class UsageMeter {
  readonly #repository: Repository;
  readonly #flushMs: number;
  readonly #now: () => number;
  readonly #onError: (error: unknown) => void;
  #pending = new Map<string, UsageIncrement & { value: number }>();
  /** Requests of the day by organization: Postgres' total at the last flush, and this process's not in it yet. */
  #day = 0;
  #stored = new Map<string, number>();
  #unstored = new Map<string, number>();
  /** Counted, being written: still this process's to add until Postgres' total is read again. */
  #inFlight = new Map<string, number>();
  #flushing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(repository: Repository, options: UsageMeterOptions = {}) {
    this.#repository = repository;
    this.#flushMs = options.flushMs ?? USAGE_FLUSH_MS;
    this.#now = options.now ?? Date.now;
    this.#onError = options.onError ?? (() => undefined);
  }

  /** Starts the periodic flush (the timer does not keep the process alive). */
  start(): this {
    this.#timer ??= setInterval(() => void this.flush().catch(this.#onError), this.#flushMs);
    this.#timer.unref();
    return this;
  }

  /** Counts `value` of `metric` for the organization (and connector) in the current hour. */
  add(organizationId: string, connectorId: string | undefined, metric: UsageMetric, value = 1): void {
    if (value <= 0) return;
    const now = this.#now();
    const hour = hourOf(now);
    const connector = connectorId ?? '';
    const key = `${organizationId}\u0000${connector}\u0000${hour}\u0000${metric}`;
    const entry = this.#pending.get(key);
    if (entry) entry.value += value;
    else this.#pending.set(key, { organizationId, connectorId: connector, hour: new Date(hour), metric, value });
    if (API_METRICS.has(metric)) {
      this.#rollDay(now);
      this.#unstored.set(organizationId, (this.#unstored.get(organizationId) ?? 0) + value);
    }
  }

  /** The organization's API requests today (UTC), every process's as far as this one knows. */
  requestsToday(organizationId: string): number {
    this.#rollDay(this.#now());
    return (
      (this.#stored.get(organizationId) ?? 0) +
      (this.#inFlight.get(organizationId) ?? 0) +
      (this.#unstored.get(organizationId) ?? 0)
    );
  }

  /** Adds what was counted to Postgres, then reads the day's requests of the organizations this process served. */
  flush(): Promise<void> {
    // One flush at a time: a slow Postgres must not pile them up.
    this.#flushing ??= this.#flush().finally(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  async #flush(): Promise<void> {
    const batch = [...this.#pending.values()];
    this.#pending = new Map();
    const day = this.#day;
    const written = this.#unstored;
    this.#unstored = new Map();
    this.#inFlight = written;
    try {
      if (batch.length > 0) await this.#repository.add(batch);
    } catch (error) {
      // Put back: the next flush tries again (a Postgres outage loses no counting while this process lives).
      for (const entry of batch) {
        const key = `${entry.organizationId}\u0000${entry.connectorId}\u0000${entry.hour.getTime()}\u0000${entry.metric}`;
        const current = this.#pending.get(key);
        if (current) current.value += entry.value;
        else this.#pending.set(key, entry);
      }
      for (const [organization, count] of written) {
        this.#unstored.set(organization, (this.#unstored.get(organization) ?? 0) + count);
      }
      this.#inFlight = new Map();
      throw error;
    }
    const organizations = [...new Set([...this.#stored.keys(), ...written.keys()])];
    if (organizations.length === 0 || day !== this.#day) {
      this.#inFlight = new Map();
      return;
    }
    let totals: Map<string, Map<string, number>>;
    try {
      totals = await this.#repository.totalsSince(new Date(day), organizations);
    } finally {
      // Whatever the read says, what was written is in Postgres now: counted once, by the next read at the latest.
      if (day === this.#day) for (const [o, n] of written) this.#stored.set(o, (this.#stored.get(o) ?? 0) + n);
      this.#inFlight = new Map();
    }
    if (day !== this.#day) return;
    for (const organization of organizations) {
      let requests = 0;
      for (const [metric, value] of totals.get(organization) ?? []) {
        if (API_METRICS.has(metric as UsageMetric)) requests += value;
      }
      this.#stored.set(organization, requests);
    }
  }

  #rollDay(now: number): void {
    const day = dayOf(now);
    if (day === this.#day) return;
    this.#day = day;
    this.#stored = new Map();
    this.#unstored = new Map();
    this.#inFlight = new Map();
  }

  /** Stops the timer and flushes what is left. */
  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }
}
