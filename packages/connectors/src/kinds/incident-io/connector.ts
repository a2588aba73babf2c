import { bearerAuth } from '../../core/auth.ts';
import { classifyWithWait, waitInBodyMs } from '../../core/classify.ts';
import { defineConnector, type EntityOperations } from '../../core/define-connector.ts';
import { incidentIoCatalog } from './catalog.ts';
import { neutralRecord } from './mapping.ts';

/** Every entity is declared in the catalog; what is incident.io's own is the neutral record shape. */
const neutral: EntityOperations = { hooks: { record: neutralRecord } };

export const incidentIoConnector = defineConnector({
  catalog: incidentIoCatalog,
  defaultBaseUrl: 'https://api.incident.io',
  auth: ({ credentials }) => bearerAuth(credentials.api_key),
  // incident.io puts the wait in the 429 body: `{"rate_limit": {"retry_after": 12, ...}}`.
  classify: classifyWithWait((_, excerpt) => waitInBodyMs(excerpt, /"retry_after"\s*:\s*"?(\d+(?:\.\d+)?)/)),
  entities: Object.fromEntries(Object.keys(incidentIoCatalog.entities).map((name) => [name, neutral])),
});
