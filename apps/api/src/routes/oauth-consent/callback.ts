import { isConnectorError } from '@conduit/connectors';
import {
  type ConsentFailure,
  type ConsentOutcome,
  completeConsent,
  EXPIRED_STATE,
  oauthDepsFrom,
  redirectWith,
} from '@conduit/oauth-consent';
import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import type { ApiDeps } from '../../deps.ts';
import { defineRoutes, problems } from '../../openapi/route-kit.ts';
import { ApiError } from '../../problem.ts';
import { consentPorts } from './consent-ports.ts';

export const oauthCallbackRoute = createRoute({
  tags: ['OAuth consent'],
  method: 'get',
  path: '/',
  summary:
    'Where the provider sends the user back: creates the connector, then 302 to redirect_url?connector_id=… (or ?error=…)',
  security: [],
  request: {
    query: z.object({
      state: z.string().describe('the signed state from initiate'),
      code: z.string().optional(),
      error: z.string().optional(),
      error_description: z.string().optional(),
    }),
  },
  responses: { 302: { description: 'back to redirect_url' }, ...problems(400) },
});

/**
 * GET /api/v1/integrations/connectors/oauth/callback?code&state: the provider sends the user's browser here.
 * Not bearer-authenticated: the signed, single-use state is the proof. Success is a 302 to
 * `redirect_url?connector_id=…`; once the state is verifiable every failure is a 302 to
 * `redirect_url?error=…&error_description=…`; without a verifiable state, a problem+json 400.
 */
export const oauthCallbackRoutes = defineRoutes({ oauthCallback: oauthCallbackRoute }, (deps: ApiDeps) => {
  const oauth = oauthDepsFrom(deps);
  const ports = consentPorts(deps);
  return {
    oauthCallback: async (c) => {
      const state = c.req.query('state') ?? '';
      const verified = await oauth.states.verify(state);
      if (verified.status === 'invalid') {
        throw new ApiError(400, 'invalid_state', 'the OAuth state is missing, forged or malformed', {
          errors: [{ path: '/query/state', message: state ? 'is not a state this service issued' : 'is required' }],
        });
      }
      const claims = verified.claims;
      const logger = c.get('logger').child({ organization_id: claims.organization_id, client_id: claims.client_id });
      let outcome: ConsentOutcome = EXPIRED_STATE;
      if (verified.status === 'valid') {
        try {
          const query = {
            code: c.req.query('code'),
            error: c.req.query('error'),
            error_description: c.req.query('error_description'),
          };
          outcome = await completeConsent(oauth, ports, claims, query, c.get('logger'));
        } catch (error) {
          outcome = failureOf(error);
          if (outcome.code === 'server_error') logger.error('oauth callback failed', { error });
        }
      }
      c.header('cache-control', 'no-store');
      c.header('referrer-policy', 'no-referrer');
      if ('connectorId' in outcome)
        return c.redirect(redirectWith(claims.redirect_url, { connector_id: outcome.connectorId }), 302);
      logger.info('oauth consent failed', { connector_type: claims.connector_type, error: outcome.code });
      return c.redirect(
        redirectWith(claims.redirect_url, { error: outcome.code, error_description: outcome.description }),
        302,
      );
    },
  };
});

function failureOf(error: unknown): ConsentFailure {
  if (error instanceof ApiError) {
    if (error.status === 409) return { code: 'connector_exists', description: error.message };
    if (error.status === 400) {
      const detail = error.errors.map((e) => `${e.path} ${e.message}`).join('; ');
      return { code: 'invalid_credentials', description: detail || error.message };
    }
  }
  if (isConnectorError(error)) {
    return { code: 'upstream_error', description: `checking the new credentials upstream failed (${error.code})` };
  }
  return { code: 'server_error', description: 'an unexpected error occurred; it has been logged' };
}
