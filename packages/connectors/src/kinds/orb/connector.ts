import { bearerAuth } from '../../core/auth.ts';
import { defineConnector } from '../../core/define-connector.ts';
import { orbCatalog } from './catalog.ts';

/** Every entity is declared in the catalog (`upstream`): the core lists, gets and replicates them. */
export const orbConnector = defineConnector({
  catalog: orbCatalog,
  defaultBaseUrl: 'https://api.withorb.com/v1',
  auth: ({ credentials }) => bearerAuth(credentials.api_key),
  authAsData: { type: 'api_key', in: 'header', name: 'Authorization', prefix: 'Bearer ' },
  entities: {},
});
