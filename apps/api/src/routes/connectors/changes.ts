import { parseOrThrow } from '@conduit/connectors';
import { changeEventView } from '@conduit/customer-webhooks';
import { redactForAudit } from '@conduit/trusted-calls';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../deps.ts';
import { auditAs } from '../../middleware/audit-trail.ts';
import { authenticatedRoute, jsonResponse, mountRoute } from '../../openapi/route-kit.ts';
import { ApiError } from '../../problem.ts';
import { searchableEntities } from '../../services/connector-view.ts';
import { loadConnector } from './load.ts';
import { ConnectorIdParams } from './schemas.ts';

export const ChangesQuery = z.strictObject({
  after: z
    .string()
    .regex(/^(latest|\d{1,18})$/, 'a cursor from meta.cursor, or latest')
    .optional()
    .describe('the `meta.cursor` of the previous page; `latest`: only what comes next; absent: the oldest retained'),
  limit: z.coerce.number().int().min(1).max(1000).default(100).describe('events per page (1-1000)'),
  entity: z.string().optional().describe('only the changes of this replicated entity'),
});

export const ChangeEventSchema = z
  .object({
    id: z.string().describe('unique per event: the webhook-id of its deliveries'),
    type: z.enum(['record.created', 'record.updated', 'record.deleted']),
    entity: z.string(),
    key: z.string().describe("the record's key"),
    record: z.record(z.string(), z.unknown()).optional().describe('the record as read (absent for deletions)'),
    changed_at: z.string().describe('when the copy applied the change (ISO 8601)'),
    source: z.enum(['sync', 'full_pass', 'webhook', 'execute']),
  })
  .openapi('ChangeEvent');

export const ChangesPageSchema = z.object({
  data: z.array(ChangeEventSchema),
  meta: z.object({
    cursor: z.string().describe('pass as `after` for what comes next (also when data is empty)'),
    has_more: z.boolean(),
  }),
});

export const listChangesRoute = authenticatedRoute({
  tags: ['Changes'],
  method: 'get',
  path: '/{connector_id}/changes',
  summary: 'The connector’s change feed: every change the copy applied, in order (docs/changes.md)',
  request: { params: ConnectorIdParams, query: ChangesQuery },
  responses: {
    200: jsonResponse(ChangesPageSchema, 'a page of change events'),
  },
  problems: [400, 404, 410],
});

/** GET /api/v1/integrations/connectors/{id}/changes */
export function registerChanges(
  app: OpenAPIHono<ApiEnv>,
  deps: Pick<ApiDeps, 'connectors' | 'changeFeed' | 'hosted'>,
): void {
  mountRoute(app, listChangesRoute, async (c) => {
    const { row, catalog } = await loadConnector(c, deps);
    // Audited with the raw query (a read of the copy, as execute search is); its values are a cursor and names.
    auditAs(c, { entity: c.req.query('entity'), params: redactForAudit(c.req.query()) });
    const query = parseOrThrow(ChangesQuery, c.req.query(), '', 'invalid_request', 'invalid query');
    if (query.entity !== undefined && !searchableEntities(catalog).includes(query.entity)) {
      throw new ApiError(400, 'invalid_request', `${row.connector_type} replicates no entity ${query.entity}`, [
        { path: '/entity', message: `one of ${searchableEntities(catalog).join(', ')}` },
      ]);
    }
    const head = await deps.changeFeed.head(row.id);
    if (query.after === 'latest') return c.json({ data: [], meta: { cursor: String(head.lastSeq), has_more: false } });
    const after = query.after === undefined ? head.purgedThrough : Number(query.after);
    if (after < head.purgedThrough) {
      throw new ApiError(
        410,
        'cursor_expired',
        'the events after this cursor are past the retention (CHANGES_RETENTION); start again from a search',
      );
    }
    const events = await deps.changeFeed.read(row.id, { after, limit: query.limit + 1, entity: query.entity });
    const page = events.slice(0, query.limit);
    const cursor = page.length > 0 ? page[page.length - 1]!.seq : Math.max(after, 0);
    return c.json({
      data: page.map((event) => changeEventView(row.id, event)),
      meta: { cursor: String(cursor), has_more: events.length > query.limit },
    });
  });
}
