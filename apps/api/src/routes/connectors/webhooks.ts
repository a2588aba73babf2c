import { findConnectorDefinition } from '@conduit/connectors';
import { type ParsedWebhook, WebhookPayloadError, webhookSchemeFor } from '@conduit/platform';
import { createRoute, OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../deps.ts';
import { jsonResponse, mountRoute, problems } from '../../openapi/route-kit.ts';
import { WebhookAcceptedSchema } from '../../openapi/schemas.ts';
import { ApiError } from '../../problem.ts';
import { ConnectorIdParams } from './schemas.ts';

const CONNECTOR_ID = /^[A-Za-z0-9-]{1,64}$/;

export const webhookRoute = createRoute({
  tags: ['Webhooks'],
  method: 'post',
  path: '/{connector_id}/webhooks',
  summary:
    "Upstream webhooks (Orb, Typeform, Sentry, incident.io, Zendesk): public, verified by the vendor's signature over the raw body with the connector's webhook secret; 202 once queued (deduplicated by event id)",
  security: [],
  request: {
    params: ConnectorIdParams,
    body: {
      required: true,
      description: "the vendor's event, exactly as signed",
      content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } },
    },
  },
  responses: { 202: jsonResponse(WebhookAcceptedSchema, 'queued (or a duplicate)'), ...problems(400, 401, 404, 413) },
});

/**
 * POST /api/v1/integrations/connectors/{id}/webhooks (DESIGN §7): public, authenticated only by the vendor's
 * signature over the raw body, checked with the connector's webhook secret before the body is parsed.
 * 404 unknown connector or kind without webhooks; 401 `invalid_signature` for a missing, wrong or stale
 * signature (and when no secret is configured: nothing can be verified); 413 over 1 MiB (the /api/* body limit);
 * 202 once queued, deduplicated by the event id. A refused call stores nothing.
 */
export function webhookRoutes(deps: ApiDeps): OpenAPIHono<ApiEnv> {
  const app = new OpenAPIHono<ApiEnv>();
  mountRoute(app, webhookRoute, async (c) => {
    const id = c.req.param('connector_id') ?? '';
    const row = CONNECTOR_ID.test(id) ? await deps.connectors.findForSync(id) : undefined;
    if (!row || !findConnectorDefinition(row.connector_type)) {
      throw new ApiError(404, 'connector_not_found', `no connector ${id}`);
    }
    const scheme = webhookSchemeFor(row.connector_type);
    if (!scheme) throw new ApiError(404, 'webhooks_unsupported', `${row.connector_type} sends no webhooks`);
    const body = Buffer.from(await c.req.arrayBuffer());
    const secret = row.webhook_secret_ciphertext
      ? (deps.cipher.decrypt(row.webhook_secret_ciphertext) as { secret: string }).secret
      : null;
    const verification = secret
      ? scheme.verify({ headers: (name) => c.req.header(name), body }, secret, Date.now())
      : { ok: false as const, reason: 'no webhook secret is configured for this connector' };
    if (!verification.ok) {
      c.get('logger').warn('webhook refused', { connector_id: row.id, reason: verification.reason });
      throw new ApiError(401, 'invalid_signature', 'the webhook signature is missing, wrong or stale');
    }
    const event = parseEvent(body, (payload) =>
      scheme.parse({ headers: (name) => c.req.header(name), body }, payload, row.config),
    );
    const outcome = event.records.length === 0 ? 'ignored' : await deps.webhookQueue.enqueue(row.id, event, Date.now());
    c.get('logger').info('webhook accepted', {
      connector_id: row.id,
      event_id: event.eventId,
      type: event.type,
      outcome,
    });
    return c.json({ event_id: event.eventId, status: outcome }, 202);
  });
  return app;
}

function parseEvent(body: Buffer, parse: (payload: unknown) => ParsedWebhook): ParsedWebhook {
  let payload: unknown;
  try {
    payload = JSON.parse(body.toString('utf8'));
  } catch {
    throw new ApiError(400, 'invalid_request', 'the webhook body is not valid JSON', [
      { path: '', message: 'invalid JSON' },
    ]);
  }
  try {
    return parse(payload);
  } catch (error) {
    if (error instanceof WebhookPayloadError) {
      throw new ApiError(400, 'invalid_request', 'the webhook body is not an event of this vendor', [
        { path: '', message: error.message },
      ]);
    }
    throw error;
  }
}
