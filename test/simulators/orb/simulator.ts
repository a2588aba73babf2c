import { Hono } from 'hono';
import { bearerToken } from '../kit/auth-header.ts';
import { FaultInjector } from '../kit/faults.ts';
import { kindOptions, type SimulatorHandle, type SimulatorOptions, simulatorHandle } from '../kit/fixture.ts';
import { UpstreamRateLimit } from '../kit/rate-limit.ts';
import { listen, type RunningServer } from '../kit/server.ts';
import type { SimulatedWebhooks } from '../kit/webhooks.ts';
import { generateOrbData, type OrbData, type OrbDataOptions, type OrbRecord } from './data.ts';
import { orbWebhooks } from './webhooks.ts';

export interface OrbSimulatorOptions extends OrbDataOptions {
  apiKey?: string;
  /** Added to every answer, like a real upstream's round trip (chaos tests need a sync that takes a while). */
  latencyMs?: number;
  /** Enforce this many requests per second (a token bucket), answering 429 with Retry-After beyond it. */
  rateLimitPerSecond?: number;
  port?: number;
}

export interface OrbSimulator extends RunningServer {
  readonly apiKey: string;
  readonly data: OrbData;
  readonly faults: FaultInjector;
  readonly webhooks: SimulatedWebhooks;
  /** Present when the simulator enforces a rate (options.rateLimitPerSecond). */
  readonly rateLimit: UpstreamRateLimit | null;
}

const MAX_LIMIT = 100;

function problem(status: number, title: string, detail?: string) {
  return {
    type: `https://docs.withorb.com/reference/error-responses#${status}`,
    status,
    title,
    detail: detail ?? null,
  };
}

/**
 * Orb API as the connector meets it: bearer API key, `{data, pagination_metadata}` cursor paging with newest
 * `created_at` first, `created_at[gte]`-style filters, and faults on demand.
 */
export function createOrbApp(
  data: OrbData,
  apiKey: string,
  faults: FaultInjector,
  latencyMs = 0,
  rateLimit: UpstreamRateLimit | null = null,
): Hono {
  const app = new Hono();
  if (rateLimit)
    app.use(
      '*',
      rateLimit.middleware(() => problem(429, 'Too many requests')),
    );
  if (latencyMs > 0)
    app.use('*', async (_c, next) => {
      await new Promise((resolve) => setTimeout(resolve, latencyMs));
      await next();
    });
  app.use(
    '*',
    faults.middleware((status) => problem(status, status === 429 ? 'Too many requests' : 'Server error')),
  );
  app.use('*', async (c, next) => {
    if (bearerToken(c.req.header('authorization')) !== apiKey) {
      return c.json(problem(401, 'Authentication error', 'Invalid API key'), 401);
    }
    await next();
  });

  // Sorting once per data change keeps large simulated data sets (chaos, benchmarks) fast to page through. Tests
  // change the arrays in place, so a change is told by the length and the records at both ends (a removal and a
  // re-insertion leave the length as it was).
  const sorted = new Map<keyof OrbData, { length: number; first: OrbRecord; last: OrbRecord; rows: OrbRecord[] }>();
  const sortedView = (name: keyof OrbData): OrbRecord[] => {
    const records = data[name];
    const cached = sorted.get(name);
    if (
      cached &&
      cached.length === records.length &&
      cached.first === records[0] &&
      cached.last === records[records.length - 1]
    )
      return cached.rows;
    const rows = [...records].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
    sorted.set(name, { length: records.length, first: records[0]!, last: records[records.length - 1]!, rows });
    return rows;
  };

  const listRoute = (name: keyof OrbData, filters: (r: OrbRecord, q: URLSearchParams) => boolean) => {
    app.get(`/v1/${name}`, (c) => {
      const query = new URL(c.req.url).searchParams;
      const limit = Number(query.get('limit') ?? 20);
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
        return c.json(problem(400, 'Request validation error', `limit must be between 1 and ${MAX_LIMIT}`), 400);
      }
      const created = dateRange(query, 'created_at');
      const rows = sortedView(name).filter((r) => created(r.created_at) && filters(r, query));
      const cursor = query.get('cursor');
      let start = 0;
      if (cursor) {
        const after = Buffer.from(cursor, 'base64url').toString();
        const index = rows.findIndex((r) => r.id === after);
        if (index < 0) return c.json(problem(400, 'Request validation error', 'invalid cursor'), 400);
        start = index + 1;
      }
      const page = rows.slice(start, start + limit);
      const hasMore = start + limit < rows.length;
      return c.json({
        data: page,
        pagination_metadata: {
          has_more: hasMore,
          next_cursor: hasMore ? Buffer.from(page.at(-1)!.id).toString('base64url') : null,
        },
      });
    });
    app.get(`/v1/${name}/:id`, (c) => {
      const found = data[name].find((r) => r.id === c.req.param('id'));
      return found ? c.json(found) : c.json(problem(404, 'Resource not found'), 404);
    });
  };

  listRoute('customers', () => true);
  listRoute('plans', () => true);
  listRoute('subscriptions', (r, q) => {
    const customer = r.customer as { id: string; external_customer_id: string };
    return (
      (!q.get('customer_id') || customer.id === q.get('customer_id')) &&
      (!q.get('external_customer_id') || customer.external_customer_id === q.get('external_customer_id')) &&
      (!q.get('status') || r.status === q.get('status'))
    );
  });
  listRoute('invoices', (r, q) => {
    const customer = r.customer as { id: string; external_customer_id: string };
    const statuses = q.getAll('status[]');
    return (
      (!q.get('customer_id') || customer.id === q.get('customer_id')) &&
      (!q.get('external_customer_id') || customer.external_customer_id === q.get('external_customer_id')) &&
      (!q.get('subscription_id') || (r.subscription as { id: string }).id === q.get('subscription_id')) &&
      (statuses.length === 0 || statuses.includes(String(r.status))) &&
      dateRange(q, 'invoice_date')(String(r.invoice_date))
    );
  });
  app.notFound((c) => c.json(problem(404, 'Not found'), 404));
  return app;
}

/** A predicate for `<field>[gte|gt|lte|lt]` bounds, parsed once per request. */
function dateRange(query: URLSearchParams, field: string): (value: string) => boolean {
  const bound = (op: string) => {
    const raw = query.get(`${field}[${op}]`);
    return raw === null ? null : Date.parse(raw);
  };
  const gte = bound('gte');
  const gt = bound('gt');
  const lte = bound('lte');
  const lt = bound('lt');
  if (gte === null && gt === null && lte === null && lt === null) return () => true;
  return (value) => {
    const at = Date.parse(value);
    return (
      (gte === null || at >= gte) && (gt === null || at > gt) && (lte === null || at <= lte) && (lt === null || at < lt)
    );
  };
}

export async function startOrbSimulator(options: OrbSimulatorOptions = {}): Promise<OrbSimulator> {
  const apiKey = options.apiKey ?? 'orb-test-key';
  const data = generateOrbData(options);
  const faults = new FaultInjector();
  const rateLimit = options.rateLimitPerSecond ? new UpstreamRateLimit(options.rateLimitPerSecond) : null;
  const server = await listen(createOrbApp(data, apiKey, faults, options.latencyMs, rateLimit), options.port ?? 0);
  return { ...server, url: `${server.url}/v1`, apiKey, data, faults, webhooks: orbWebhooks(data), rateLimit };
}

/** The generic handle (kit/fixture.ts) over the Orb simulator. */
export async function startOrb(options: SimulatorOptions = {}): Promise<SimulatorHandle> {
  const startDate = '2024-01-01T00:00:00Z';
  const sim = await startOrbSimulator(kindOptions(options, 'customers'));
  const first = (name: keyof OrbData) => sim.data[name][0]!.id;
  return simulatorHandle(sim, {
    connectorType: 'Orb',
    credentials: { api_key: sim.apiKey },
    badCredentials: { api_key: 'wrong-key' },
    startDate,
    examples: [
      { entity: 'customers', action: 'list', params: { limit: 5 } },
      { entity: 'customers', action: 'get', params: { customer_id: first('customers') } },
      { entity: 'subscriptions', action: 'list', params: { status: 'active' } },
      { entity: 'subscriptions', action: 'get', params: { subscription_id: first('subscriptions') } },
      { entity: 'plans', action: 'list', params: {} },
      { entity: 'plans', action: 'get', params: { plan_id: first('plans') } },
      { entity: 'invoices', action: 'list', params: { status: 'paid', invoice_date_gte: '2024-01-01T00:00:00Z' } },
      { entity: 'invoices', action: 'get', params: { invoice_id: first('invoices') } },
    ],
    expectedKeys: (entity) =>
      sim.data[entity as keyof OrbData]
        .filter((r) => Date.parse(r.created_at) >= Date.parse(startDate))
        .map((r) => r.id),
  });
}
