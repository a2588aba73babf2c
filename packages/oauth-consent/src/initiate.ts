import {
  ConnectorError,
  type FieldProblem,
  fillUrl,
  type KindCatalog,
  parseOrThrow,
  problemsOf,
} from '@conduit/connectors';
import type { Logger } from '@conduit/observability';
import { z } from 'zod';
import type { OAuthDeps } from './oauth-deps.ts';
import type { OAuthProvider, OAuthProviderLookup } from './oauth-providers.ts';
import type { ConsentPorts } from './ports.ts';
import { redirectUrlProblem } from './redirect-url.ts';

const text = z.string().trim().min(1).max(200);

export const OAuthInitiateBody = z.strictObject({
  customer_name: text,
  connector_type: z.string().min(1).max(100),
  redirect_url: z.string().min(1).max(2048),
  name: text.optional(),
  /** Connector configuration variables (Zendesk Talk: subdomain, which the provider URLs need too). */
  config: z.record(z.string(), z.unknown()).optional(),
  replication_config: z.record(z.string(), z.unknown()).optional(),
});
export type OAuthInitiateBody = z.infer<typeof OAuthInitiateBody>;

const DEFAULT_HISTORY_DAYS = 30;

/** 30 days back at midnight UTC, `YYYY-MM-DDT00:00:00Z`: the strictest start_date form (telephony) fits all. */
export function defaultStartDate(now: Date): string {
  const day = new Date(now.getTime() - DEFAULT_HISTORY_DAYS * 86_400_000);
  return `${day.toISOString().slice(0, 10)}T00:00:00Z`;
}

export interface ConsentRequest {
  readonly organizationId: string;
  readonly clientId: string;
  readonly body: OAuthInitiateBody;
  /** The catalog of body.connector_type (the app resolves the kind and reports an unknown one). */
  readonly catalog: KindCatalog;
}

export interface ConsentStarted {
  readonly consent_url: string;
  readonly state: string;
  readonly expires_at: string;
}

/**
 * Starts a consent: everything the callback needs to create the connector is checked here and travels in the
 * signed state. Bad input throws a ConnectorError `invalid_request` naming each field.
 */
export async function startConsent(
  oauth: OAuthDeps,
  ports: ConsentPorts,
  request: ConsentRequest,
  logger: Logger,
): Promise<ConsentStarted> {
  const { body, catalog } = request;
  const provider = providerFor(oauth.providers.lookup(catalog.connectorType), catalog.connectorType, logger);
  const config = body.config ?? {};
  const replicationConfig = body.replication_config ?? { start_date: defaultStartDate(oauth.now()) };

  const client = await ports.findClient(request.clientId);
  const redirectProblem = redirectUrlProblem(body.redirect_url, client?.allowed_redirect_urls ?? []);
  const authorize = fillUrl(provider.authorizeUrl, config);
  const problems: FieldProblem[] = [
    ...(redirectProblem ? [{ path: '/redirect_url', message: redirectProblem }] : []),
    ...problemsOf(() => parseOrThrow(catalog.config, config, '/config', 'invalid_request', '')),
    ...placeholderProblems(authorize),
    ...placeholderProblems(fillUrl(provider.tokenUrl, config)),
    ...problemsOf(() =>
      parseOrThrow(catalog.replicationConfig, replicationConfig, '/replication_config', 'invalid_request', ''),
    ),
  ];
  if (problems.length > 0 || !('url' in authorize)) {
    throw new ConnectorError('invalid_request', 'invalid OAuth consent request', dedupe(problems));
  }

  const name = body.name ?? catalog.connectorType;
  const identity = { customer_name: body.customer_name, connector_type: catalog.connectorType, name };
  await ports.ensureNewIdentity(request.organizationId, identity);

  const issued = await oauth.states.issue({
    organization_id: request.organizationId,
    client_id: request.clientId,
    ...identity,
    redirect_url: body.redirect_url,
    config,
    replication_config: replicationConfig,
    pkce: provider.pkce,
  });
  const consent = new URL(authorize.url);
  const params: Record<string, string> = {
    ...provider.authorizeParams,
    response_type: 'code',
    client_id: provider.clientId,
    redirect_uri: oauth.callbackUrl,
    scope: provider.scopes.join(' '),
    state: issued.state,
    ...(issued.codeChallenge ? { code_challenge: issued.codeChallenge, code_challenge_method: 'S256' } : {}),
  };
  for (const [key, value] of Object.entries(params)) consent.searchParams.set(key, value);
  logger.info('oauth consent initiated', { connector_type: catalog.connectorType });
  return { consent_url: consent.toString(), state: issued.state, expires_at: issued.expiresAt.toISOString() };
}

function providerFor(lookup: OAuthProviderLookup, connectorType: string, logger: Logger): OAuthProvider {
  if (lookup.status === 'ok') return lookup.provider;
  if (lookup.status === 'not_configured') {
    logger.warn('oauth consent requested for a kind without an OAuth client', {
      connector_type: connectorType,
      missing: lookup.missing,
    });
    throw new ConnectorError('invalid_request', `the OAuth consent flow is not configured for ${connectorType}`, [
      { path: '/connector_type', message: `this deployment has no OAuth client for ${connectorType}` },
    ]);
  }
  throw new ConnectorError('invalid_request', `${connectorType} has no OAuth consent flow`, [
    {
      path: '/connector_type',
      message: `${connectorType} does not support the OAuth consent flow: create it with its credentials (POST /api/v1/integrations/connectors)`,
    },
  ]);
}

function placeholderProblems(result: { url: string } | { invalid: string[] }): FieldProblem[] {
  if ('url' in result) return [];
  return result.invalid.map((name) => ({
    path: `/config/${name}`,
    message: `is required for the OAuth consent flow: ${name === 'subdomain' ? 'lowercase letters, digits and hyphens' : 'a valid value'}`,
  }));
}

function dedupe(problems: FieldProblem[]): FieldProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path}\u0000${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
