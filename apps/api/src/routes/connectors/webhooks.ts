import { type ParsedWebhook, WebhookPayloadError } from '@conduit/connectors';
import { getConnInfo } from '@hono/node-server/conninfo';
import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../deps.ts';
import { ConnectorIdParams } from '../../openapi/connector-bodies.ts';
import { defineRoutes, jsonResponse, problems } from '../../openapi/route-kit.ts';
import { WebhookAcceptedSchema } from '../../openapi/schemas.ts';
import { ApiError } from '../../problem.ts';
import { assertJsonDepth } from '../../request-body.ts';
import { type Refusal, RefusedWebhooks } from '../../services/refused-webhooks.ts';

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
  responses: {
    202: jsonResponse(WebhookAcceptedSchema, 'queued (or a duplicate)'),
    ...problems(400, 401, 404, 413, 429),
  },
});

/**
 * POST /api/v1/integrations/connectors/{id}/webhooks (README "Webhooks from the upstream", docs/security.md):
 * public, authenticated only by the vendor's signature over the raw body, checked with the connector's webhook
 * secret before the body is parsed.
 * 404 for an unknown connector and for a kind without webhooks alike (the answer names nothing, so it tells no
 * one which connectors exist or what kind they are); 401 `invalid_signature` for a missing, wrong or stale
 * signature (and when no secret is configured: nothing can be verified); 413 over 1 MiB (the /api/* body limit);
 * 202 once queued, deduplicated by the event id. A refused call stores nothing; refused calls are limited per
 * address and per connector (429 with Retry-After instead of the refusal) and logged by sample (RefusedWebhooks).
 * A signed call to an existing connector is checked whatever the counts, so the limits never refuse a genuine one.
 */
export const webhookRoutes = defineRoutes({ webhook: webhookRoute }, (deps: ApiDeps) => {
  const refused = new RefusedWebhooks({ redis: deps.redis, namespace: deps.env.NAMESPACE });
  /** Counts the refusal, logs a sample of them, and throws the answer (429 once over a limit). */
  const refuse = async (
    c: Context<ApiEnv>,
    address: string,
    connectorId: string | undefined,
    reason: string,
    answer: ApiError,
  ): Promise<never> => {
    const refusal: Refusal = await refused.record(address, connectorId);
    if (refusal.log) {
      c.get('logger').warn('webhook refused', {
        ...(connectorId ? { connector_id: connectorId } : {}),
        address,
        reason,
        refused_in_window: refusal.count,
      });
    }
    if (refusal.retryAfterSeconds !== undefined) {
      throw new ApiError(429, 'rate_limited', 'too many refused webhook calls', {
        retryAfterSeconds: refusal.retryAfterSeconds,
      });
    }
    throw answer;
  };
  return {
    webhook: async (c) => {
      // No address check up front: behind a proxy, or from a vendor's shared egress, every caller has one address,
      // and anonymous calls would then lock the genuine ones out. Only refusals count, and a call whose signature
      // verifies for an existing connector is accepted whatever its address has been refused.
      const address = remoteAddress(c);
      const id = c.req.param('connector_id') ?? '';
      const row = CONNECTOR_ID.test(id) ? await deps.connectors.findForSync(id) : undefined;
      const scheme = row ? (await deps.hosted.kinds.forRow(row))?.definition.catalog.webhooks : undefined;
      if (!row || !scheme) {
        const notFound = new ApiError(404, 'connector_not_found', 'no webhook endpoint at this address');
        return refuse(c, address, undefined, row ? 'kind without webhooks' : 'unknown connector', notFound);
      }
      const body = Buffer.from(await c.req.arrayBuffer());
      const secret = row.webhook_secret_ciphertext
        ? (deps.cipher.decrypt(row.webhook_secret_ciphertext) as { secret: string }).secret
        : null;
      const verification = secret
        ? scheme.verify({ headers: (name) => c.req.header(name), body }, secret, Date.now())
        : { ok: false as const, reason: 'no webhook secret is configured for this connector' };
      if (!verification.ok) {
        const invalid = new ApiError(401, 'invalid_signature', 'the webhook signature is missing, wrong or stale');
        return refuse(c, address, row.id, verification.reason, invalid);
      }
      const event = parseEvent(body, (payload) =>
        scheme.parse({ headers: (name) => c.req.header(name), body }, payload, row.config),
      );
      const outcome =
        event.records.length === 0 ? 'ignored' : await deps.webhookQueue.enqueue(row.id, event, Date.now());
      c.get('logger').info('webhook accepted', {
        connector_id: row.id,
        event_id: event.eventId,
        type: event.type,
        outcome,
      });
      return c.json({ event_id: event.eventId, status: outcome }, 202);
    },
  };
});

/**
 * The TCP peer's address. Never X-Forwarded-For: a caller could then pick a fresh address per call. Behind a
 * proxy every call shares the proxy's address; the per-connector limit still holds. In-process requests (tests
 * through app.request) have no socket.
 */
function remoteAddress(c: Context<ApiEnv>): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

function parseEvent(body: Buffer, parse: (payload: unknown) => ParsedWebhook): ParsedWebhook {
  let payload: unknown;
  const text = body.toString('utf8');
  // A signed event is still the connector owner's text: refused past the depth every JSON body is held to.
  assertJsonDepth(text);
  try {
    payload = JSON.parse(text);
  } catch (error) {
    throw new ApiError(400, 'invalid_request', 'the webhook body is not valid JSON', {
      errors: [{ path: '', message: 'invalid JSON' }],
      cause: error,
    });
  }
  try {
    return parse(payload);
  } catch (error) {
    if (error instanceof WebhookPayloadError) {
      throw new ApiError(400, 'invalid_request', 'the webhook body is not an event of this vendor', {
        errors: [{ path: '', message: error.message }],
        cause: error,
      });
    }
    throw error;
  }
}
