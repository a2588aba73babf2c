import { CONNECTOR_DEFINITIONS } from '@conduit/connectors';
import { redactForAudit } from '@conduit/trusted-calls';
import type { ApiDeps } from '../../deps.ts';
import { auditAs } from '../../middleware/audit-trail.ts';
import { CreateConnectorBody } from '../../openapi/connector-bodies.ts';
import { createExample } from '../../openapi/examples.ts';
import { CreateConnectorRequest } from '../../openapi/request-schemas.ts';
import { authenticatedRoute, defineRoutes, jsonBody, jsonResponse } from '../../openapi/route-kit.ts';
import { ConnectorSchema } from '../../openapi/schemas.ts';
import { readJson } from '../../request-body.ts';
import { createConnector } from '../../services/create-connector.ts';

export const createConnectorRoute = authenticatedRoute({
  tags: ['Connectors'],
  method: 'post',
  path: '/',
  summary: 'Create a connector (credentials are checked against the upstream, then encrypted)',
  request: {
    body: jsonBody(
      CreateConnectorRequest,
      CONNECTOR_DEFINITIONS.map(({ catalog }) => ({ summary: catalog.connectorType, value: createExample(catalog) })),
    ),
  },
  responses: {
    201: jsonResponse(ConnectorSchema, 'the connector, without its credentials; its first sync is queued'),
  },
  problems: [400, 404, 409, 413, 502],
});

/** POST /api/v1/integrations/connectors */
export const createRoutes = defineRoutes({ createConnector: createConnectorRoute }, (deps: ApiDeps) => {
  return {
    createConnector: async (c) => {
      // The envelope first; then the kind's own credentials, config and replication schemas (the branches of the
      // documented union) in createConnector, so connector_type matches case-insensitively and errors name the field.
      const body = await readJson(c, CreateConnectorBody);
      auditAs(c, { params: redactForAudit(body) });
      const view = await createConnector(
        deps,
        { organizationId: c.get('auth').organizationId, ...body },
        c.get('logger'),
      );
      auditAs(c, { connectorId: view.connector_id });
      return c.json(view, 201);
    },
  };
});
