import { signingKeysFrom } from '@conduit/config';
import { parseOrThrow } from '@conduit/connectors';
import type { AuditEntryRow, AuditQuery } from '@conduit/db';
import { z } from 'zod';
import type { ApiDeps } from '../deps.ts';
import { authenticatedRoute, defineRoutes, jsonResponse } from '../openapi/route-kit.ts';
import { ApiError } from '../problem.ts';
import { EXPORT_RETRY_SECONDS, EXPORTS_PER_ORGANIZATION, ExportSlots, ndjsonExport } from '../services/audit-export.ts';
import { AuditIds } from '../services/audit-ids.ts';

const NDJSON = 'application/x-ndjson';

export const AuditEntrySchema = z
  .object({
    id: z.string().describe('opaque: says nothing about other entries, of this organization or another'),
    at: z.string().describe('ISO 8601'),
    organization_id: z.string(),
    client_id: z.string().nullable().describe('the API client whose token made the call'),
    connector_id: z.string().nullable(),
    source: z.enum(['api', 'mcp']),
    action: z
      .string()
      .describe(
        'execute.<action>, connector.create|update|delete|sync, connector.webhook_secret.set|remove, mcp.tool_call, ...',
      ),
    entity: z.string().nullable(),
    params: z.unknown().describe('the call’s params, every secret replaced by "[REDACTED]"'),
    idempotency_key: z.string().nullable(),
    status: z
      .number()
      .int()
      .nullable()
      .describe(
        'the HTTP status of the answer; null: no outcome was recorded (the API process ended before answering)',
      ),
    error_code: z.string().nullable(),
    upstream_status: z.number().int().nullable(),
    latency_ms: z.number().nullable().describe('null with status null'),
    request_id: z.string().nullable(),
  })
  .meta({ id: 'AuditEntry' });

const StatusFilter = z
  .string()
  .regex(/^(\d{3}|[1-5]xx|success|error)$/, 'an HTTP status (404), a class (4xx), success (< 400) or error (>= 400)');

const AuditQuerySchema = z.strictObject({
  connector_id: z.string().min(1).max(64).optional(),
  action: z.string().min(1).max(128).optional().describe('exact, or a dotted prefix: `execute` matches execute.*'),
  status: StatusFilter.optional(),
  since: z.iso.datetime({ offset: true }).optional().describe('entries at or after this instant'),
  until: z.iso.datetime({ offset: true }).optional().describe('entries before this instant'),
  cursor: z.string().max(64).optional().describe('meta.cursor of the previous page'),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

export const auditRoute = authenticatedRoute({
  tags: ['Audit'],
  method: 'get',
  path: '/',
  summary: 'The organization’s audit trail, newest first (Accept: application/x-ndjson exports every matching entry)',
  request: { query: AuditQuerySchema },
  responses: {
    200: {
      ...jsonResponse(
        z.object({
          data: z.array(AuditEntrySchema),
          meta: z.object({ cursor: z.string().nullable(), has_more: z.boolean() }),
        }),
        'a page of entries (or, with Accept: application/x-ndjson, one entry per line)',
      ),
    },
  },
  problems: [400, 429, 503],
});

/** GET /api/v1/audit (docs/trusted-calls.md): read-only; no route changes or removes an entry. */
export const auditRoutes = defineRoutes({ audit: auditRoute }, (deps: ApiDeps) => {
  const ids = new AuditIds(signingKeysFrom(deps.env).auditId);
  const exports = new ExportSlots(EXPORTS_PER_ORGANIZATION);
  return {
    audit: async (c) => {
      const query = parseOrThrow(AuditQuerySchema, c.req.query(), '/query', 'invalid_request', 'invalid query');
      const organizationId = c.get('auth').organizationId;
      const filter: AuditQuery = {
        organizationId,
        connectorId: query.connector_id,
        action: query.action,
        status: query.status === undefined ? undefined : statusRange(query.status),
        since: query.since === undefined ? undefined : new Date(query.since),
        until: query.until === undefined ? undefined : new Date(query.until),
        beforeId: query.cursor === undefined ? undefined : idOfCursor(ids, organizationId, query.cursor),
        limit: query.limit,
      };
      const view = (row: AuditEntryRow) => entryOf(row, ids.publicId(organizationId, row.id));
      if ((c.req.header('accept') ?? '').includes(NDJSON)) {
        const release = exports.take(organizationId);
        if (!release) {
          deps.metrics.requestsRefused.inc({ route: 'audit', reason: 'exports_busy' });
          throw new ApiError(
            429,
            'rate_limited',
            `this organization already runs ${EXPORTS_PER_ORGANIZATION} audit exports; try again when one ends`,
            { retryAfterSeconds: EXPORT_RETRY_SECONDS },
          );
        }
        try {
          return ndjsonExport(deps.auditEntries, filter, view, release);
        } catch (error) {
          release();
          throw error;
        }
      }
      const rows = await deps.auditEntries.page({ ...filter, limit: query.limit + 1 });
      const page = rows.slice(0, query.limit);
      const hasMore = rows.length > query.limit;
      return c.json({
        data: page.map(view),
        // The cursor is the last entry's public id: it says nothing the page did not.
        meta: { cursor: hasMore ? ids.publicId(organizationId, page.at(-1)!.id) : null, has_more: hasMore },
      });
    },
  };
});

function entryOf(row: AuditEntryRow, id: string): z.infer<typeof AuditEntrySchema> {
  return {
    id,
    at: row.at.toISOString(),
    organization_id: row.organization_id,
    client_id: row.client_id,
    connector_id: row.connector_id,
    source: row.source === 'mcp' ? 'mcp' : 'api',
    action: row.action,
    entity: row.entity,
    params: row.params,
    idempotency_key: row.idempotency_key,
    status: row.status,
    error_code: row.error_code,
    upstream_status: row.upstream_status,
    latency_ms: row.latency_ms,
    request_id: row.request_id,
  };
}

function statusRange(filter: string): { min: number; max: number } {
  if (filter === 'success') return { min: 100, max: 399 };
  if (filter === 'error') return { min: 400, max: 599 };
  if (filter.endsWith('xx')) {
    const hundred = Number(filter[0]) * 100;
    return { min: hundred, max: hundred + 99 };
  }
  return { min: Number(filter), max: Number(filter) };
}

function idOfCursor(ids: AuditIds, organizationId: string, cursor: string): number {
  const id = ids.internalId(organizationId, cursor);
  if (id === undefined) {
    throw new ApiError(400, 'invalid_cursor', 'invalid cursor', {
      errors: [{ path: '/query/cursor', message: 'is not a cursor this endpoint returned to this organization' }],
    });
  }
  return id;
}
