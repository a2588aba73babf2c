import { z } from 'zod';

/**
 * A connector's identity in its organization (kind, customer, name) and its settings, as stored once it is created
 * (credentials apart): the fields the API shows of every connector and an OAuth consent carries to its callback.
 */
export const connectorSettingsShape = {
  connector_type: z.string(),
  customer_name: z.string(),
  name: z.string(),
  config: z.record(z.string(), z.unknown()),
  replication_config: z.record(z.string(), z.unknown()),
};
