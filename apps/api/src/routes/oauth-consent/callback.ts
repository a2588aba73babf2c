import { isConnectorError } from '@conduit/connectors';
import { credentialsFrom, expandProviderUrl } from '@conduit/platform';
import { type Context, Hono } from 'hono';
import type { ApiEnv } from '../../deps.ts';
import { ApiError } from '../../problem.ts';
import { createConnector } from '../../services/create-connector.ts';
import { type OAuthApiDeps, type OAuthDeps, oauthDepsFrom } from './oauth-deps.ts';
import type { OAuthStateClaims } from './oauth-state.ts';
import { redirectWith } from './redirect-url.ts';
import { exchangeCode } from './token-exchange.ts';

/** RFC 6749 §4.1.2.1 codes a provider may send back; anything else becomes `provider_error`. */
const PROVIDER_ERRORS = new Set([
  'access_denied',
  'invalid_request',
  'invalid_scope',
  'server_error',
  'temporarily_unavailable',
  'unauthorized_client',
  'unsupported_response_type',
]);

/** A failure the caller's redirect_url receives as `?error=<code>&error_description=<description>`. */
interface Failure {
  readonly code: string;
  readonly description: string;
}

/**
 * GET /api/v1/integrations/connectors/oauth/callback?code&state: the provider sends the user's browser here.
 * Not bearer-authenticated: the signed, single-use state is the proof. Success is a 302 to
 * `redirect_url?connector_id=…`; once the state is verifiable every failure is a 302 to
 * `redirect_url?error=…&error_description=…`; without a verifiable state, a problem+json 400.
 */
export function oauthCallbackRoutes(deps: OAuthApiDeps): Hono<ApiEnv> {
  const oauth = oauthDepsFrom(deps);
  const app = new Hono<ApiEnv>();
  app.get('/', async (c) => {
    const state = c.req.query('state') ?? '';
    const verified = await oauth.states.verify(state);
    if (verified.status === 'invalid') {
      throw new ApiError(400, 'invalid_state', 'the OAuth state is missing, forged or malformed', [
        { path: '/query/state', message: state ? 'is not a state this service issued' : 'is required' },
      ]);
    }
    const claims = verified.claims;
    const logger = c.get('logger').child({ organization_id: claims.organization_id, client_id: claims.client_id });
    let outcome: { connectorId: string } | Failure;
    if (verified.status === 'expired') {
      outcome = { code: 'expired_state', description: 'the consent took too long; start it again' };
    } else {
      try {
        outcome = await complete(deps, oauth, claims, c);
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
  });
  return app;
}

async function complete(
  deps: OAuthApiDeps,
  oauth: OAuthDeps,
  claims: OAuthStateClaims,
  c: Context<ApiEnv>,
): Promise<{ connectorId: string } | Failure> {
  const consumed = await oauth.states.consume(claims);
  if (consumed.status === 'replayed') return { code: 'state_replayed', description: 'this consent was already used' };
  if (consumed.status === 'verifier_missing') {
    return { code: 'expired_state', description: 'the consent took too long; start it again' };
  }
  const providerError = c.req.query('error');
  if (providerError) {
    return {
      code: PROVIDER_ERRORS.has(providerError) ? providerError : 'provider_error',
      description: printable(c.req.query('error_description')) || 'the provider did not grant access',
    };
  }
  const code = c.req.query('code');
  if (!code) return { code: 'invalid_request', description: 'the provider sent no authorization code' };

  // The API client may have lost the organization while its user was at the provider.
  const client = await deps.clients.find(claims.client_id);
  if (!client?.organization_ids.includes(claims.organization_id)) {
    return { code: 'unauthorized_client', description: 'the API client may no longer act for this organization' };
  }
  const lookup = oauth.providers.lookup(claims.connector_type);
  const tokenUrl = expandProviderUrl(lookup.status === 'ok' ? lookup.provider.tokenUrl : '', claims.config);
  if (lookup.status !== 'ok' || !('url' in tokenUrl)) {
    return { code: 'server_error', description: `the OAuth client for ${claims.connector_type} is not configured` };
  }
  const exchanged = await exchangeCode({
    provider: lookup.provider,
    tokenUrl: tokenUrl.url,
    code,
    redirectUri: oauth.callbackUrl,
    codeVerifier: consumed.codeVerifier,
    timeoutMs: oauth.timeoutMs,
    fetch: oauth.fetch,
  });
  if (exchanged.status === 'failed') return { code: 'token_exchange_failed', description: exchanged.description };

  const view = await createConnector(
    deps,
    {
      organizationId: claims.organization_id,
      customer_name: claims.customer_name,
      connector_type: claims.connector_type,
      name: claims.name,
      credentials: credentialsFrom(lookup.provider, exchanged.tokens),
      config: claims.config,
      replication_config: claims.replication_config,
    },
    c.get('logger'),
  );
  return { connectorId: view.connector_id };
}

function failureOf(error: unknown): Failure {
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

/** Provider text for the caller's page: printable, bounded. */
function printable(value: string | undefined): string {
  return (value ?? '').replaceAll(/\p{C}/gu, ' ').slice(0, 200).trim();
}
