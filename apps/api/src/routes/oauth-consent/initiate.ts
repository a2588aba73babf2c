import { OAuthInitiateBody, oauthDepsFrom, startConsent } from '@conduit/oauth-consent';
import type { ApiDeps } from '../../deps.ts';
import { authenticatedRoute, bodySchema, defineRoutes, jsonBody, jsonResponse } from '../../openapi/route-kit.ts';
import { OAuthInitiateResponseSchema } from '../../openapi/schemas.ts';
import { readJson } from '../../request-body.ts';
import { requireDefinition } from '../../services/create-connector.ts';
import { consentPorts } from './consent-ports.ts';

export const oauthInitiateRoute = authenticatedRoute({
  tags: ['OAuth consent'],
  method: 'post',
  path: '/oauth/initiate',
  summary:
    'Start the OAuth consent flow: a consent_url with a signed, single-use state (kinds whose vendor offers OAuth)',
  request: {
    body: jsonBody(OAuthInitiateBody, [
      {
        summary: 'Typeform',
        value: { customer_name: 'acme', connector_type: 'Typeform', redirect_url: 'https://app.example/connected' },
      },
    ]),
  },
  responses: {
    200: jsonResponse(OAuthInitiateResponseSchema, 'where to send the user'),
  },
  problems: [400, 404, 409],
});

/**
 * POST /api/v1/integrations/connectors/oauth/initiate → `{consent_url, state, expires_at}`. Mount it on the
 * authenticated connectors app before the `/:id` routes.
 */
export const oauthInitiateRoutes = defineRoutes({ oauthInitiate: oauthInitiateRoute }, (deps: ApiDeps) => {
  const oauth = oauthDepsFrom(deps);
  const ports = consentPorts(deps);
  return {
    oauthInitiate: async (c) => {
      const body = await readJson(c, bodySchema(oauthInitiateRoute));
      const { catalog } = requireDefinition(body.connector_type);
      const auth = c.get('auth');
      const request = { organizationId: auth.organizationId, clientId: auth.clientId, body, catalog };
      const started = await startConsent(oauth, ports, request, c.get('logger'));
      c.header('cache-control', 'no-store');
      return c.json(started);
    },
  };
});
