import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { bearerToken } from '../kit/auth-header.ts';
import { FaultInjector } from '../kit/faults.ts';
import {
  type ExampleCall,
  kindOptions,
  type SimulatorHandle,
  type SimulatorOptions,
  simulatorHandle,
} from '../kit/fixture.ts';
import { listen, type RunningServer } from '../kit/server.ts';
import type { SimulatedWebhooks } from '../kit/webhooks.ts';
import {
  generateIncidentIoData,
  type IncidentIoData,
  type IncidentIoDataOptions,
  type IncidentIoRecord,
} from './data.ts';
import { incidentIoWebhooks } from './webhooks.ts';

export interface IncidentIoSimulatorOptions extends IncidentIoDataOptions {
  apiKey?: string;
  port?: number;
}

export interface IncidentIoSimulator extends RunningServer {
  readonly apiKey: string;
  readonly data: IncidentIoData;
  readonly faults: FaultInjector;
  readonly webhooks: SimulatedWebhooks;
}

interface Route {
  readonly path: string;
  readonly key: keyof IncidentIoData;
  readonly singular: string;
  /** Maximum page_size of a paginated endpoint (422 above it); absent: the endpoint returns everything. */
  readonly max?: number;
  readonly defaultPageSize?: number;
}

/** Paths and page-size maxima of the incident.io API (https://api-docs.incident.io). */
export const ROUTES: readonly Route[] = [
  { path: '/v2/incidents', key: 'incidents', singular: 'incident', max: 250, defaultPageSize: 25 },
  { path: '/v2/alerts', key: 'alerts', singular: 'alert', max: 50, defaultPageSize: 25 },
  { path: '/v2/escalations', key: 'escalations', singular: 'escalation', max: 50, defaultPageSize: 25 },
  { path: '/v2/users', key: 'users', singular: 'user', max: 250, defaultPageSize: 25 },
  { path: '/v2/incident_updates', key: 'incident_updates', singular: 'incident_update', max: 250, defaultPageSize: 25 },
  { path: '/v2/schedules', key: 'schedules', singular: 'schedule', max: 250, defaultPageSize: 25 },
  { path: '/v2/incident_roles', key: 'incident_roles', singular: 'incident_role' },
  { path: '/v1/incident_statuses', key: 'incident_statuses', singular: 'incident_status' },
  { path: '/v1/severities', key: 'severities', singular: 'severity' },
  { path: '/v2/incident_timestamps', key: 'incident_timestamps', singular: 'incident_timestamp' },
  { path: '/v2/custom_fields', key: 'custom_fields', singular: 'custom_field' },
  { path: '/v2/catalog_types', key: 'catalog_types', singular: 'catalog_type' },
];

/** incident.io's error body: `{type, status, request_id, errors: [{code, message, source?}]}`. */
export function incidentIoError(status: number, type: string, message: string, field?: string) {
  return {
    type,
    status,
    request_id: randomUUID(),
    errors: [{ code: type, message, ...(field ? { source: { field } } : {}) }],
  };
}

/** incident.io's 429: the wait is in the body, `rate_limit.retry_after` (seconds). */
export function tooManyRequests(retryAfterSeconds = 1) {
  return {
    ...incidentIoError(429, 'too_many_requests', 'Rate limit exceeded'),
    rate_limit: { name: 'api_key', limit: 1200, remaining: 0, retry_after: retryAfterSeconds },
  };
}

const DATE_FILTERS = ['created_at', 'updated_at'] as const;
const DATE_OPS: Readonly<Record<string, (a: number, b: number) => boolean>> = {
  gte: (a, b) => a >= b,
  gt: (a, b) => a > b,
  lte: (a, b) => a <= b,
  lt: (a, b) => a < b,
};

function matches(record: IncidentIoRecord, query: URLSearchParams): boolean | string {
  for (const field of DATE_FILTERS) {
    for (const [op, compare] of Object.entries(DATE_OPS)) {
      const raw = query.get(`${field}[${op}]`);
      if (raw === null) continue;
      const bound = Date.parse(raw);
      if (Number.isNaN(bound)) return `${field}[${op}]`;
      if (!compare(Date.parse(String(record[field])), bound)) return false;
    }
  }
  const incident = query.get('incident_id');
  return incident === null || record.incident_id === incident;
}

/**
 * incident.io API as the connector meets it: Bearer API key, `page_size` + `after` paging with
 * `{<entity>: [...], pagination_meta: {after, page_size, total_record_count}}`, per-endpoint page-size maxima
 * (422 above), `created_at`/`updated_at` bracket filters, get by id (incidents also by numeric reference), and 429
 * with `rate_limit.retry_after` in the body.
 */
export function createIncidentIoApp(data: IncidentIoData, apiKey: string, faults: FaultInjector): Hono {
  const app = new Hono();
  app.use(
    '*',
    faults.middleware((status) =>
      status === 429 ? tooManyRequests() : incidentIoError(status, 'internal_error', 'Something went wrong'),
    ),
  );
  app.use('*', async (c, next) => {
    if (bearerToken(c.req.header('authorization')) !== apiKey) {
      return c.json(incidentIoError(401, 'authentication_error', 'The API key provided is not valid'), 401);
    }
    await next();
  });

  for (const route of ROUTES) {
    app.get(route.path, (c) => {
      const query = new URL(c.req.url).searchParams;
      const filtered: IncidentIoRecord[] = [];
      for (const record of data[route.key]) {
        const ok = matches(record, query);
        if (typeof ok === 'string') {
          return c.json(incidentIoError(422, 'validation_error', `${ok} must be a date or date-time`, ok), 422);
        }
        if (ok) filtered.push(record);
      }
      if (route.max === undefined) return c.json({ [route.key]: filtered });
      const raw = query.get('page_size');
      const pageSize = raw === null ? (route.defaultPageSize ?? 25) : Number(raw);
      if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > route.max) {
        const message = `page_size must be between 1 and ${route.max}`;
        return c.json(incidentIoError(422, 'validation_error', message, 'page_size'), 422);
      }
      const after = query.get('after');
      let start = 0;
      if (after !== null) {
        const index = filtered.findIndex((r) => r.id === after);
        if (index < 0) return c.json(incidentIoError(422, 'validation_error', 'after is not valid', 'after'), 422);
        start = index + 1;
      }
      const page = filtered.slice(start, start + pageSize);
      const more = start + pageSize < filtered.length;
      return c.json({
        [route.key]: page,
        pagination_meta: {
          ...(more ? { after: page.at(-1)!.id } : {}),
          page_size: pageSize,
          total_record_count: filtered.length,
        },
      });
    });
    if (route.key === 'incident_updates') continue;
    app.get(`${route.path}/:id`, (c) => {
      const id = c.req.param('id');
      const found = data[route.key].find(
        (r) => r.id === id || (route.key === 'incidents' && r.reference === `INC-${id}`),
      );
      if (!found) return c.json(incidentIoError(404, 'not_found', `No ${route.singular} with id ${id}`), 404);
      return c.json({ [route.singular]: found });
    });
  }
  app.notFound((c) => c.json(incidentIoError(404, 'not_found', 'Not found'), 404));
  return app;
}

export async function startIncidentIoSimulator(options: IncidentIoSimulatorOptions = {}): Promise<IncidentIoSimulator> {
  const apiKey = options.apiKey ?? 'inc-test-key-5b1f0c';
  const data = generateIncidentIoData(options);
  // The real list order: newest incidents first.
  data.incidents.sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)) || a.id.localeCompare(b.id));
  const faults = new FaultInjector();
  const server = await listen(createIncidentIoApp(data, apiKey, faults), options.port ?? 0);
  return { ...server, apiKey, data, faults, webhooks: incidentIoWebhooks(data) };
}

/** The generic handle (kit/fixture.ts) over the incident.io simulator. */
export async function startIncidentIo(
  options: SimulatorOptions = {},
): Promise<SimulatorHandle & { data: IncidentIoData }> {
  const startDate = '2024-06-01T00:00:00Z';
  const sim = await startIncidentIoSimulator(kindOptions(options, 'incidents'));
  const examples: ExampleCall[] = [];
  for (const route of ROUTES) {
    examples.push({ entity: route.key, action: 'list', params: route.max ? { page_size: 5 } : {} });
    if (route.key !== 'incident_updates') {
      examples.push({ entity: route.key, action: 'get', params: { id: sim.data[route.key][0]!.id } });
    }
  }
  return simulatorHandle(sim, {
    connectorType: 'Incident-Io',
    credentials: { api_key: sim.apiKey },
    badCredentials: { api_key: 'inc-revoked-key-0000' },
    startDate,
    examples,
    // Incidents replicate incrementally from start_date (updated_at[gte]); everything else is a full refresh.
    expectedKeys: (entity) =>
      sim.data[entity as keyof IncidentIoData]
        .filter((r) => entity !== 'incidents' || Date.parse(String(r.updated_at)) >= Date.parse(startDate))
        .map((r) => r.id),
  });
}
