import { z } from 'zod';

const CHANGE_TYPES = ['record.created', 'record.updated', 'record.deleted'] as const;
const names = z.array(z.string().min(1).max(200)).min(1).max(100);

export const CreateEndpointBody = z.strictObject({
  url: z.string().max(2048).describe('https, a public address (WEBHOOK_ALLOW_HTTP / WEBHOOK_ALLOW_PRIVATE relax it)'),
  description: z.string().max(500).optional(),
  connector_ids: names.optional().describe('only these connectors (default: every connector of the organization)'),
  entities: names.optional().describe('only changes of these entities'),
  types: z.array(z.enum(CHANGE_TYPES)).min(1).optional().describe('only these change types'),
});

export const UpdateEndpointBody = z.strictObject({
  url: CreateEndpointBody.shape.url.optional(),
  description: z.string().max(500).nullable().optional(),
  connector_ids: names.nullable().optional(),
  entities: names.nullable().optional(),
  types: z.array(z.enum(CHANGE_TYPES)).min(1).nullable().optional(),
  enabled: z.boolean().optional().describe('true enables an endpoint disabled after 5 days of failures'),
});

export const ReplayBody = z.strictObject({
  after: z
    .string()
    .regex(/^\d{1,18}$/, 'a change-feed cursor')
    .describe('re-send the events after this cursor'),
  connector_id: z.string().optional().describe('the connector whose feed the cursor is in (default: all followed)'),
});

export const DeliveriesQuery = z.strictObject({
  status: z.enum(['delivered', 'failed', 'pending']).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

export const EndpointIdParams = z.object({ endpoint_id: z.string() });

export const WebhookEndpointSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    description: z.string().nullable(),
    connector_ids: z.array(z.string()).nullable(),
    entities: z.array(z.string()).nullable(),
    types: z.array(z.string()).nullable(),
    enabled: z.boolean(),
    disabled_reason: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi('WebhookEndpoint');

export const CreatedEndpointSchema = WebhookEndpointSchema.extend({
  secret: z.string().describe('whsec_… (shown once): verify the webhook-signature header with it'),
});

export const DeliverySchema = z.object({
  webhook_id: z.string(),
  connector_id: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  created_at: z.string(),
  attempts: z.array(
    z.object({
      at: z.string(),
      http_status: z.number().nullable(),
      error: z.string().nullable(),
      latency_ms: z.number(),
    }),
  ),
});
