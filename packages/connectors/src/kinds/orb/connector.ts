import { bearerAuth } from '../../core/auth.ts';
import { defineConnector } from '../../core/define-connector.ts';
import { orbCatalog } from './catalog.ts';

type OrbCredentials = { api_key: string };

/** Every entity is declared in the catalog (`upstream`): the core lists, gets and replicates them. */
export const orbConnector = defineConnector<OrbCredentials, Record<string, never>>({
  catalog: orbCatalog,
  defaultBaseUrl: 'https://api.withorb.com/v1',
  auth: ({ credentials }) => bearerAuth(credentials.api_key),
  entities: {},
});
