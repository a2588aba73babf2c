import { bearerAuth } from '../../core/auth.ts';
import { classifyWithWait, waitInBodyMs } from '../../core/classify.ts';
import { defineConnector } from '../../core/define-connector.ts';
import { incidentIoCatalog } from './catalog.ts';

export const incidentIoConnector = defineConnector({
  catalog: incidentIoCatalog,
  defaultBaseUrl: 'https://api.incident.io',
  auth: ({ credentials }) => bearerAuth(credentials.api_key),
  authAsData: { type: 'bearer' },
  // incident.io puts the wait in the 429 body: `{"rate_limit": {"retry_after": 12, ...}}`.
  classify: classifyWithWait((_, excerpt) => waitInBodyMs(excerpt, /"retry_after"\s*:\s*"?(\d+(?:\.\d+)?)/)),
  // Every entity is declared in the catalog, the neutral field names too (the upstream's aliases).
  entities: {},
});
