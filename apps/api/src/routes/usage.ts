import { parseOrThrow } from '@conduit/connectors';
import { USAGE_METRICS } from '@conduit/usage';
import { z } from 'zod';
import type { ApiDeps } from '../deps.ts';
import { authenticatedRoute, defineRoutes, jsonResponse } from '../openapi/route-kit.ts';
import { ApiError } from '../problem.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
// One answer holds at most this many buckets (31 days by the hour, ~2.7 years by the day): bounded rows and work.
const MAX_BUCKETS = 1000;

const UsageQuerySchema = z.strictObject({
  from: z.iso
    .datetime({ offset: true })
    .optional()
    .describe(
      'ISO 8601, rounded down to its bucket; default: 24 hours (by hour) or 30 days (by day) up to `to`, its own bucket included',
    ),
  to: z.iso.datetime({ offset: true }).optional().describe('ISO 8601, exclusive; default: now'),
  granularity: z.enum(['hour', 'day']).default('day'),
  connector_id: z.string().min(1).max(64).optional().describe('one connector’s usage; default: the organization’s'),
});

const QuotaStateSchema = z.object({
  limit: z.int().nullable().describe('null: no limit'),
  used: z.int(),
});

export const UsageSchema = z
  .object({
    data: z.array(
      z.object({
        start: z.string().describe('the bucket’s start (UTC), ISO 8601'),
        metrics: z.record(z.enum(USAGE_METRICS), z.int()).describe('each metric’s count in the bucket'),
      }),
    ),
    meta: z.object({
      from: z.string(),
      to: z.string(),
      granularity: z.enum(['hour', 'day']),
      connector_id: z.string().nullable(),
      quotas: z
        .record(z.string(), QuotaStateSchema)
        .describe('the organization’s quotas now: connectors, records, requests_per_day, definitions'),
    }),
  })
  .meta({ id: 'Usage' });

export const usageRoute = authenticatedRoute({
  tags: ['Usage'],
  method: 'get',
  path: '/',
  summary: 'The organization’s usage per hour or day (API calls by class, upstream requests, records, deliveries)',
  request: { query: UsageQuerySchema },
  responses: { 200: jsonResponse(UsageSchema, 'usage buckets (empty ones included) and the quotas') },
  problems: [400, 429],
});

/** GET /api/v1/usage (docs/operations.md, "Usage and quotas"): counted off the request path, flushed every 5 s. */
export const usageRoutes = defineRoutes({ usage: usageRoute }, (deps: ApiDeps) => ({
  usage: async (c) => {
    const query = parseOrThrow(UsageQuerySchema, c.req.query(), '/query', 'invalid_request', 'invalid query');
    const step = query.granularity === 'hour' ? HOUR_MS : DAY_MS;
    const to = query.to === undefined ? Date.now() : Date.parse(query.to);
    // Default: the last 24 hours or 30 days, the current (partial) one included.
    const buckets = query.granularity === 'hour' ? 24 : 30;
    const fromRaw = query.from === undefined ? to - 1 - (buckets - 1) * step : Date.parse(query.from);
    const from = fromRaw - (fromRaw % step);
    if (from >= to) {
      throw new ApiError(400, 'invalid_request', 'from must be before to', {
        errors: [{ path: '/query/from', message: 'must be before to' }],
      });
    }
    if ((to - from) / step > MAX_BUCKETS) {
      throw new ApiError(400, 'invalid_request', `at most ${MAX_BUCKETS} buckets per answer`, {
        errors: [
          {
            path: '/query/from',
            message: `spans more than ${MAX_BUCKETS} ${query.granularity}s: narrow it or use day`,
          },
        ],
      });
    }
    const { organizationId } = c.get('auth');
    // This process's counters first: what the caller just did is in the answer.
    await deps.usage.flush();
    const [rows, quotas] = await Promise.all([
      deps.usageRows.buckets({
        organizationId,
        from: new Date(from),
        to: new Date(to),
        granularity: query.granularity,
        connectorId: query.connector_id,
      }),
      deps.quotas.stateOf(organizationId, deps.usage.requestsToday(organizationId)),
    ]);
    const byStart = new Map<number, Record<string, number>>();
    for (let at = from; at < to; at += step) byStart.set(at, {});
    for (const row of rows) {
      const metrics = byStart.get(row.start.getTime());
      if (metrics) metrics[row.metric] = row.value;
    }
    return c.json({
      data: [...byStart].map(([start, counted]) => ({
        start: new Date(start).toISOString(),
        metrics: Object.fromEntries(USAGE_METRICS.map((m) => [m, counted[m] ?? 0])),
      })),
      meta: {
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
        granularity: query.granularity,
        connector_id: query.connector_id ?? null,
        quotas,
      },
    });
  },
}));
