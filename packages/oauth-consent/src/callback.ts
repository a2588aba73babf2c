import { fillUrl } from '@conduit/connectors';
import type { Logger } from '@conduit/observability';
import type { OAuthDeps } from './oauth-deps.ts';
import { credentialsFrom } from './oauth-providers.ts';
import type { OAuthStateClaims } from './oauth-state.ts';
import type { ConsentPorts } from './ports.ts';
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
export interface ConsentFailure {
  readonly code: string;
  readonly description: string;
}

export type ConsentOutcome = { readonly connectorId: string } | ConsentFailure;

export const EXPIRED_STATE: ConsentFailure = {
  code: 'expired_state',
  description: 'the consent took too long; start it again',
};

/** What the provider sent to the callback besides the state. */
export interface CallbackQuery {
  readonly code: string | undefined;
  readonly error: string | undefined;
  readonly error_description: string | undefined;
}

/**
 * The callback's work once the state verified: consume it (single use), take the provider's answer, exchange the
 * code for tokens and create the connector through the app. Errors the app's ports throw propagate.
 */
export async function completeConsent(
  oauth: OAuthDeps,
  ports: ConsentPorts,
  claims: OAuthStateClaims,
  query: CallbackQuery,
  logger: Logger,
): Promise<ConsentOutcome> {
  const consumed = await oauth.states.consume(claims);
  if (consumed.status === 'replayed') return { code: 'state_replayed', description: 'this consent was already used' };
  if (consumed.status === 'verifier_missing') return EXPIRED_STATE;
  if (query.error) {
    return {
      code: PROVIDER_ERRORS.has(query.error) ? query.error : 'provider_error',
      description: printable(query.error_description) || 'the provider did not grant access',
    };
  }
  if (!query.code) return { code: 'invalid_request', description: 'the provider sent no authorization code' };

  // The API client may have lost the organization while its user was at the provider.
  const client = await ports.findClient(claims.client_id);
  if (!client?.organization_ids.includes(claims.organization_id)) {
    return { code: 'unauthorized_client', description: 'the API client may no longer act for this organization' };
  }
  const lookup = oauth.providers.lookup(claims.connector_type);
  const tokenUrl = fillUrl(lookup.status === 'ok' ? lookup.provider.tokenUrl : '', claims.config);
  if (lookup.status !== 'ok' || !('url' in tokenUrl)) {
    return { code: 'server_error', description: `the OAuth client for ${claims.connector_type} is not configured` };
  }
  const exchanged = await exchangeCode({
    provider: lookup.provider,
    tokenUrl: tokenUrl.url,
    code: query.code,
    redirectUri: oauth.callbackUrl,
    codeVerifier: consumed.codeVerifier,
    timeoutMs: oauth.timeoutMs,
    fetch: oauth.fetch,
  });
  if (exchanged.status === 'failed') return { code: 'token_exchange_failed', description: exchanged.description };

  return ports.createConnector(
    {
      organizationId: claims.organization_id,
      customer_name: claims.customer_name,
      connector_type: claims.connector_type,
      name: claims.name,
      credentials: credentialsFrom(lookup.provider, exchanged.tokens),
      config: claims.config,
      replication_config: claims.replication_config,
    },
    logger,
  );
}

/** Provider text for the caller's page: printable, bounded. */
function printable(value: string | undefined): string {
  return (value ?? '').replaceAll(/\p{C}/gu, ' ').slice(0, 200).trim();
}
