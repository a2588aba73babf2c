import { randomUUID } from 'node:crypto';
import { parseOrThrow } from '@conduit/connectors';
import { changeEventId, endpointUrlProblem, newEndpointSecret } from '@conduit/customer-webhooks';
import type { WebhookEndpointRow } from '@conduit/db';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../deps.ts';
import { auditAs } from '../../middleware/audit-trail.ts';
import { authenticatedRoute, jsonBody, jsonResponse, mountRoute, resourceRoutes } from '../../openapi/route-kit.ts';
import { ApiError } from '../../problem.ts';
import { readJson } from '../../request-body.ts';
import {
  CreatedEndpointSchema,
  CreateEndpointBody,
  DeliveriesQuery,
  DeliverySchema,
  EndpointIdParams,
  ReplayBody,
  UpdateEndpointBody,
  WebhookEndpointSchema,
} from './schemas.ts';

type Deps = Pick<ApiDeps, 'env' | 'connectors' | 'webhookEndpoints' | 'cipher' | 'changeFeed'>;

const tags = ['Webhook endpoints'];
/** The ids this API gives endpoints: `we_` and a UUID's 32 hex digits. */
const ENDPOINT_ID = /^we_[0-9a-f]{32}$/;
export const createEndpointRoute = authenticatedRoute({
  tags,
  method: 'post',
  path: '/',
  summary: 'Subscribe an endpoint to the organization’s changes (signed Standard Webhooks deliveries)',
  request: {
    body: jsonBody(CreateEndpointBody, [{ summary: 'every change', value: { url: 'https://example.com/hooks' } }]),
  },
  responses: {
    201: jsonResponse(CreatedEndpointSchema, 'the endpoint, with its secret (shown this once)'),
  },
  problems: [400, 409],
});
const endpoint = resourceRoutes({ tags, idPath: '/{endpoint_id}', params: EndpointIdParams });
export const listEndpointsRoute = endpoint.list('The organization’s endpoints', WebhookEndpointSchema, 'the endpoints');
export const getEndpointRoute = endpoint.get(
  'An endpoint (never its secret)',
  jsonResponse(WebhookEndpointSchema, 'the endpoint'),
);
export const updateEndpointRoute = endpoint.update(
  'Change the URL or the filters, or enable a disabled endpoint',
  { schema: UpdateEndpointBody, example: { summary: 'enable', value: { enabled: true } } },
  jsonResponse(WebhookEndpointSchema, 'the endpoint'),
);
export const deleteEndpointRoute = endpoint.delete('Remove an endpoint and its deliveries');
export const listDeliveriesRoute = authenticatedRoute({
  tags,
  method: 'get',
  path: '/{endpoint_id}/deliveries',
  summary: 'The endpoint’s deliveries, newest first, each with its attempts (time, HTTP status or error, latency)',
  request: { params: EndpointIdParams, query: DeliveriesQuery },
  responses: {
    200: jsonResponse(z.object({ data: z.array(DeliverySchema) }), 'the deliveries'),
  },
});
export const replayRoute = authenticatedRoute({
  tags,
  method: 'post',
  path: '/{endpoint_id}/replay',
  summary: 'Send again every change after a change-feed cursor (with the same webhook-ids)',
  request: {
    params: EndpointIdParams,
    body: jsonBody(ReplayBody, [{ summary: 'from the start', value: { after: '0' } }]),
  },
  responses: {
    202: jsonResponse(z.object({ connector_ids: z.array(z.string()) }), 'the worker sends them again'),
  },
  problems: [400, 404, 410],
});

function endpointView(row: WebhookEndpointRow): z.infer<typeof WebhookEndpointSchema> {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    connector_ids: row.connector_ids,
    entities: row.entities,
    types: row.types,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at.toISOString(),
  };
}

/** POST, GET, PATCH, DELETE /api/v1/webhook-endpoints, their deliveries and replay (docs/changes.md). */
export function registerWebhookEndpoints(app: OpenAPIHono<ApiEnv>, deps: Deps): void {
  const policy = {
    allowHttp: deps.env.WEBHOOK_ALLOW_HTTP === '1',
    allowPrivate: deps.env.WEBHOOK_ALLOW_PRIVATE === '1',
  };
  const checkUrl = (url: string | undefined) => {
    const problem = url === undefined ? null : endpointUrlProblem(url, policy);
    if (problem)
      throw new ApiError(400, 'invalid_request', `invalid url: ${problem}`, [{ path: '/url', message: problem }]);
  };
  const checkConnectors = async (organizationId: string, ids: readonly string[] | null | undefined) => {
    for (const [i, id] of (ids ?? []).entries()) {
      if (!(await deps.connectors.find(organizationId, id))) {
        throw new ApiError(400, 'invalid_request', `no connector ${id}`, [
          { path: `/connector_ids/${i}`, message: 'not a connector of this organization' },
        ]);
      }
    }
  };
  const load = async (c: Context<ApiEnv>) => {
    const id = c.req.param('endpoint_id') ?? '';
    // Only an id of ours reaches the database (a NUL byte, say, is not text Postgres takes).
    const row = ENDPOINT_ID.test(id) ? await deps.webhookEndpoints.find(c.get('auth').organizationId, id) : undefined;
    if (!row) throw new ApiError(404, 'webhook_endpoint_not_found', `no webhook endpoint ${JSON.stringify(id)}`);
    return row;
  };

  mountRoute(app, createEndpointRoute, async (c) => {
    const organizationId = c.get('auth').organizationId;
    const body = await readJson(c, CreateEndpointBody);
    auditAs(c, { params: body });
    checkUrl(body.url);
    await checkConnectors(organizationId, body.connector_ids);
    const secret = newEndpointSecret();
    const row = await deps.webhookEndpoints.insertUnderLimit(
      {
        id: `we_${randomUUID().replaceAll('-', '')}`,
        organization_id: organizationId,
        url: body.url,
        description: body.description ?? null,
        connector_ids: body.connector_ids ?? null,
        entities: body.entities ?? null,
        types: body.types ?? null,
        secret_ciphertext: deps.cipher.encrypt(secret),
      },
      deps.env.WEBHOOK_ENDPOINTS_PER_ORGANIZATION,
    );
    if (!row) {
      const limit = deps.env.WEBHOOK_ENDPOINTS_PER_ORGANIZATION;
      throw new ApiError(
        409,
        'webhook_endpoint_limit',
        `this organization has ${limit} webhook endpoints, the most it may have (WEBHOOK_ENDPOINTS_PER_ORGANIZATION); delete one first`,
      );
    }
    return c.json({ ...endpointView(row), secret }, 201);
  });

  mountRoute(app, listEndpointsRoute, async (c) => {
    const rows = await deps.webhookEndpoints.list(c.get('auth').organizationId);
    return c.json({ data: rows.map(endpointView) });
  });

  mountRoute(app, getEndpointRoute, async (c) => c.json(endpointView(await load(c))));

  mountRoute(app, updateEndpointRoute, async (c) => {
    const row = await load(c);
    const body = await readJson(c, UpdateEndpointBody);
    auditAs(c, { params: { id: row.id, ...body } });
    checkUrl(body.url);
    await checkConnectors(row.organization_id, body.connector_ids);
    const updated = await deps.webhookEndpoints.update(row.organization_id, row.id, body);
    return c.json(endpointView(updated));
  });

  mountRoute(app, deleteEndpointRoute, async (c) => {
    const row = await load(c);
    auditAs(c, { params: { id: row.id } });
    await deps.webhookEndpoints.delete(row.organization_id, row.id);
    return c.body(null, 204);
  });

  mountRoute(app, listDeliveriesRoute, async (c) => {
    const row = await load(c);
    const query = parseOrThrow(DeliveriesQuery, c.req.query(), '', 'invalid_request', 'invalid query');
    const deliveries = await deps.webhookEndpoints.deliveries(row.id, query);
    return c.json({
      data: deliveries.map((d) => ({
        webhook_id: changeEventId(d.connector_id, Number(d.seq)),
        connector_id: d.connector_id,
        status: d.status,
        created_at: d.created_at.toISOString(),
        attempts: d.attempts_log.map((a) => ({
          at: a.attempted_at.toISOString(),
          http_status: a.http_status,
          error: a.error,
          latency_ms: a.latency_ms,
        })),
      })),
    });
  });

  mountRoute(app, replayRoute, async (c) => {
    const row = await load(c);
    const body = await readJson(c, ReplayBody);
    auditAs(c, { params: { id: row.id, ...body } });
    let connectorIds: string[];
    if (body.connector_id !== undefined) {
      const followed = row.connector_ids === null || row.connector_ids.includes(body.connector_id);
      if (!followed || !(await deps.connectors.find(row.organization_id, body.connector_id))) {
        throw new ApiError(400, 'invalid_request', `the endpoint does not follow connector ${body.connector_id}`, [
          { path: '/connector_id', message: 'not a connector this endpoint follows' },
        ]);
      }
      connectorIds = [body.connector_id];
    } else {
      connectorIds =
        row.connector_ids ?? (await deps.connectors.listByOrganization(row.organization_id)).map((r) => r.id);
    }
    for (const connectorId of connectorIds) {
      if (Number(body.after) < (await deps.changeFeed.head(connectorId)).purgedThrough) {
        throw new ApiError(
          410,
          'cursor_expired',
          `the events of connector ${connectorId} after this cursor are past the retention (CHANGES_RETENTION)`,
        );
      }
    }
    await deps.webhookEndpoints.rewind(row.id, connectorIds, Number(body.after));
    return c.json({ connector_ids: connectorIds }, 202);
  });
}
