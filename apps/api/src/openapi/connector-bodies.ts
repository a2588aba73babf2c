import { z } from 'zod';

// The request bodies and path parameters of the connector routes: the routes validate with them, and the services
// and the OpenAPI document read them from here (a layer below both).

const name = z.string().trim().min(1).max(200);
export const CustomerName = name;
export const ConnectorName = name;

export const CreateConnectorBody = z.strictObject({
  customer_name: name,
  connector_type: z.string().min(1).max(100),
  name,
  credentials: z.record(z.string(), z.unknown()),
  replication_config: z.record(z.string(), z.unknown()),
  config: z.record(z.string(), z.unknown()).optional(),
});

export const UpdateConnectorBody = z
  .strictObject({
    name: name.optional(),
    credentials: z.record(z.string(), z.unknown()).optional(),
    /** Sets the webhook secret (docs/api.md) (encrypted, never shown again); null removes it. */
    webhook_secret: z.string().min(8).max(512).nullable().optional(),
  })
  .refine((b) => b.name !== undefined || b.credentials !== undefined || b.webhook_secret !== undefined, {
    message: 'give name, credentials or webhook_secret',
  });

/** `mode` (docs/api.md) defaults to the entity's own rhythm (incremental, with its periodic full passes). */
export const SyncBody = z.strictObject({
  entity: z.string().min(1).optional(),
  mode: z.enum(['incremental', 'full'], { error: "must be 'incremental' or 'full'" }).optional(),
});

export const ExecuteBody = z.strictObject({
  entity: z.string().min(1).max(100),
  action: z.string().min(1).max(50),
  params: z.record(z.string(), z.unknown()).optional(),
});

/** The `{connector_id}` path parameter (checked by loadConnector: an unknown id is a 404, never a 400). */
export const ConnectorIdParams = z.object({
  connector_id: z.string().describe('the connector_id returned at creation'),
});
