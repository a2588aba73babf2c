import { timingSafeEqual } from 'node:crypto';
import type { Queue } from 'bullmq';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Logger } from './logger.ts';

/** Per-entity lag rows: the oldest last success of an entity across the connectors of a kind. */
export interface EntityLag {
  readonly connector_type: string;
  readonly entity: string;
  readonly lag_seconds: number;
}

export interface MetricsSources {
  readonly queue: Queue;
  readonly entityLag: () => Promise<readonly EntityLag[]>;
  readonly logger: Logger;
  /** The upstream budgets of the connectors this process used lately (GET .../{id} rate_budget). */
  readonly budgets?: () => Promise<readonly { kind: string; view: BudgetReading }[]>;
  /** Today's usage and the quotas of the organizations active today or with quotas of their own. */
  readonly usage?: () => Promise<UsageReading>;
}

/** What the usage and quota gauges read (docs/operations.md, "Usage and quotas"). */
export interface UsageReading {
  readonly today: readonly { organization: string; metric: string; value: number }[];
  readonly quotas: readonly { organization: string; quota: string; limit: number | null; used: number }[];
}

/** What the budget gauge reads of one connector's upstream budget (the platform's BudgetView). */
interface BudgetReading {
  readonly limit_per_s: number;
  readonly used_per_s: number;
  readonly paused_until: string | null;
}

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed', 'waiting-children'] as const;

/**
 * The Prometheus metrics of one process (docs/operations.md), in its own registry so an API and a worker in one test
 * process stay apart. Counters are bumped on the hot path (a label lookup and an add); queue depth and lag are
 * read from Redis and Postgres only when scraped.
 */
export class PlatformMetrics {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly upstreamCalls: Counter<'kind' | 'status'>;
  readonly syncRuns: Counter<'kind' | 'entity' | 'outcome'>;
  readonly recordsIndexed: Counter<'kind' | 'entity'>;
  readonly budgetWait: Histogram<'lane'>;
  /** Requests refused before they ran: counted here, not written to the audit trail (docs/operations.md). */
  readonly requestsRefused: Counter<'route' | 'reason'>;

  constructor(service: 'api' | 'worker', sources: MetricsSources) {
    this.registry.setDefaultLabels({ service });
    const registers = [this.registry];
    this.httpDuration = new Histogram({
      name: 'conduit_http_request_duration_seconds',
      help: 'API request latency by route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    const counter = <L extends string>(name: string, labelNames: readonly L[], help: string) =>
      new Counter<L>({ name, help, labelNames, registers });
    this.upstreamCalls = counter(
      'conduit_upstream_requests_total',
      ['kind', 'status'],
      'Upstream HTTP attempts by connector kind and status (retried attempts included; "error" = unreachable)',
    );
    this.syncRuns = counter(
      'conduit_sync_runs_total',
      ['kind', 'entity', 'outcome'],
      'Entity sync runs by outcome (done, skipped, failed, interrupted, rate_limited)',
    );
    this.recordsIndexed = counter(
      'conduit_records_indexed_total',
      ['kind', 'entity'],
      'Records written to the search index by sync runs',
    );
    this.requestsRefused = counter(
      'conduit_api_requests_refused_total',
      ['route', 'reason'],
      'API requests refused before they ran, by route group (connectors, webhook_endpoints, audit) and reason (rate_limited, exports_busy)',
    );
    this.budgetWait = new Histogram({
      name: 'conduit_upstream_budget_wait_seconds',
      help: 'Time the connector budget made an upstream call wait for its slot (the waits it assigned), by lane (live, sync)',
      labelNames: ['lane'],
      buckets: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    // Read from Redis or Postgres when scraped: a source that fails leaves its gauge out of this scrape (a warning
    // says which), never the whole scrape.
    const scrapedGauge = <T>(
      name: string,
      help: string,
      labelNames: readonly string[],
      unavailable: string,
      read: () => Promise<T>,
      write: (gauge: Gauge, value: T) => void,
    ) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers,
        async collect() {
          try {
            write(this, await read());
          } catch (error) {
            sources.logger.warn(`metrics: ${unavailable} unavailable`, { error: String(error) });
          }
        },
      });
    const budgets = sources.budgets;
    if (budgets) {
      scrapedGauge(
        'conduit_upstream_budget',
        'Per kind, over the connectors this process used lately: limit_per_s and used_per_s (sums), connectors and paused (counts)',
        ['kind', 'measure'],
        'upstream budgets',
        async () => {
          const byKind = new Map<string, { limit: number; used: number; connectors: number; paused: number }>();
          for (const { kind, view } of await budgets()) {
            const sums = byKind.get(kind) ?? { limit: 0, used: 0, connectors: 0, paused: 0 };
            sums.limit += view.limit_per_s;
            sums.used += view.used_per_s;
            sums.connectors += 1;
            if (view.paused_until) sums.paused += 1;
            byKind.set(kind, sums);
          }
          return byKind;
        },
        (gauge, byKind) => {
          gauge.reset();
          for (const [kind, sums] of byKind) {
            gauge.set({ kind, measure: 'limit_per_s' }, sums.limit);
            gauge.set({ kind, measure: 'used_per_s' }, sums.used);
            gauge.set({ kind, measure: 'connectors' }, sums.connectors);
            gauge.set({ kind, measure: 'paused' }, sums.paused);
          }
        },
      );
    }
    const usage = sources.usage;
    if (usage) {
      // One read for both gauges per scrape: the quotas' is collected first and keeps it for the usage one.
      let reading: Promise<UsageReading> | undefined;
      scrapedGauge(
        'conduit_quota',
        'Per organization and quota: its limit (-1: none) and what is used now',
        ['organization', 'quota', 'measure'],
        'quotas',
        () => {
          reading = usage();
          return reading;
        },
        (gauge, read) => {
          gauge.reset();
          for (const q of read.quotas) {
            gauge.set({ organization: q.organization, quota: q.quota, measure: 'limit' }, q.limit ?? -1);
            gauge.set({ organization: q.organization, quota: q.quota, measure: 'used' }, q.used);
          }
        },
      );
      scrapedGauge(
        'conduit_usage_today',
        'Per organization and metric: the count since midnight UTC (API calls by class, upstream requests, records synced, deliveries)',
        ['organization', 'metric'],
        'usage',
        () => reading ?? usage(),
        (gauge, read) => {
          gauge.reset();
          for (const u of read.today) gauge.set({ organization: u.organization, metric: u.metric }, u.value);
        },
      );
    }
    scrapedGauge(
      'conduit_sync_queue_jobs',
      'Sync queue depth by job state',
      ['state'],
      'queue depth',
      () => sources.queue.getJobCounts(...QUEUE_STATES),
      (gauge, counts) => {
        for (const state of QUEUE_STATES) gauge.set({ state }, counts[state] ?? 0);
      },
    );
    scrapedGauge(
      'conduit_sync_lag_seconds',
      'Per entity: now minus the oldest last successful sync across connectors of the kind',
      ['kind', 'entity'],
      'sync lag',
      () => sources.entityLag(),
      (gauge, rows) => {
        gauge.reset();
        for (const row of rows) gauge.set({ kind: row.connector_type, entity: row.entity }, row.lag_seconds);
      },
    );
  }

  /** Process metrics (CPU, memory, event-loop delay, GC): once per process, from main.ts. */
  collectProcessMetrics(): void {
    collectDefaultMetrics({ register: this.registry });
  }

  /** The hook the connectors' HTTP client calls after every attempt. */
  upstreamObserver(kind: string): (status: number | null) => void {
    return (status) => this.upstreamCalls.inc({ kind, status: status === null ? 'error' : String(status) });
  }

  /** The exposition text and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** METRICS_TOKEN unset: open. Set: `Authorization: Bearer <token>` required (constant-time comparison). */
export function metricsAuthorized(token: string | undefined, authorization: string | null | undefined): boolean {
  if (!token) return true;
  const expected = Buffer.from(`Bearer ${token}`);
  const given = Buffer.from(authorization ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
