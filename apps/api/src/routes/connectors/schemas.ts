import { z } from 'zod';

const name = z.string().trim().min(1).max(200);

export const CreateConnectorBody = z.strictObject({
  customer_name: name,
  connector_type: z.string().min(1).max(100),
  name,
  credentials: z.record(z.string(), z.unknown()),
  replication_config: z.record(z.string(), z.unknown()),
  config: z.record(z.string(), z.unknown()).optional(),
});

export const UpdateConnectorBody = z
  .strictObject({ name: name.optional(), credentials: z.record(z.string(), z.unknown()).optional() })
  .refine((b) => b.name !== undefined || b.credentials !== undefined, { message: 'give name or credentials' });

export const SyncBody = z.strictObject({ entity: z.string().min(1).optional() });

export const ExecuteBody = z.strictObject({
  entity: z.string().min(1).max(100),
  action: z.string().min(1).max(50),
  params: z.record(z.string(), z.unknown()).optional(),
});
