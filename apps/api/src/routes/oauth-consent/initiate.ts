import { OAuthInitiateBody, oauthDepsFrom, startConsent } from '@conduit/oauth-consent';
import type { Hono } from 'hono';
import type { ApiDeps, ApiEnv } from '../../deps.ts';
import { readJson } from '../../request-body.ts';
import { requireDefinition } from '../../services/create-connector.ts';
import { consentPorts } from './consent-ports.ts';

/**
 * POST /api/v1/integrations/connectors/oauth/initiate → `{consent_url, state, expires_at}`. Mount it on the
 * authenticated connectors app before the `/:id` routes.
 */
export function registerOAuthInitiate(app: Hono<ApiEnv>, deps: ApiDeps): void {
  const oauth = oauthDepsFrom(deps);
  const ports = consentPorts(deps);
  app.post('/oauth/initiate', async (c) => {
    const body = await readJson(c, OAuthInitiateBody);
    const { catalog } = requireDefinition(body.connector_type);
    const auth = c.get('auth');
    const request = { organizationId: auth.organizationId, clientId: auth.clientId, body, catalog };
    const started = await startConsent(oauth, ports, request, c.get('logger'));
    c.header('cache-control', 'no-store');
    return c.json(started);
  });
}
