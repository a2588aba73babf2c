import { type AuthSpec, CONNECTOR_DEFINITIONS, type ConsentSpec, envSuffix } from '@conduit/connectors';

/**
 * One kind's OAuth 2.0 authorization-code settings: its catalog's `auth` block (token URL, client auth) with the
 * consent part (authorize URL, scopes, PKCE, authorize params, credential sources). URLs may hold `{subdomain}`.
 */
export type OAuthProviderSpec = Omit<AuthSpec, 'consent'> & ConsentSpec;

/**
 * The kinds whose vendor offers an authorization-code flow, by canonical connector_type: read from the catalogs,
 * where each kind states its OAuth facts once. Kinds without a `consent` block (PayPal's client credentials, the
 * API-key kinds) are absent.
 */
export const OAUTH_PROVIDERS: Readonly<Record<string, OAuthProviderSpec>> = Object.fromEntries(
  CONNECTOR_DEFINITIONS.flatMap(({ catalog: { connectorType, auth } }) =>
    auth?.consent ? [[connectorType, { tokenUrl: auth.tokenUrl, clientAuth: auth.clientAuth, ...auth.consent }]] : [],
  ),
);

/** A provider with this deployment's OAuth client and URL overrides applied. */
export interface OAuthProvider extends OAuthProviderSpec {
  readonly connectorType: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Values of `{ from: 'env' }` credential sources, by credential field. */
  readonly envCredentials: Readonly<Record<string, string>>;
}

export type OAuthProviderLookup =
  | { readonly status: 'ok'; readonly provider: OAuthProvider }
  /** The vendor offers no authorization-code flow for this kind. */
  | { readonly status: 'unsupported' }
  /** The vendor does, but this deployment has no OAuth client (or a required secret) for it. */
  | { readonly status: 'not_configured'; readonly missing: readonly string[] };

export interface OAuthProviders {
  lookup(connectorType: string): OAuthProviderLookup;
  /** The kinds that can run the consent flow on this deployment. */
  configured(): string[];
}

type EnvSource = Readonly<Record<string, string | undefined>>;

/**
 * Resolves providers against an environment: `OAUTH_CLIENT_ID_<KIND>` / `OAUTH_CLIENT_SECRET_<KIND>` (required),
 * `OAUTH_AUTHORIZE_URL_<KIND>` and `CONNECTOR_TOKEN_URL_<KIND>` (overrides, docs/operations.md), KIND in upper snake case.
 *
 * @example oauthProviders(process.env).lookup('Typeform')
 */
export function oauthProviders(env: EnvSource, specs: Readonly<Record<string, OAuthProviderSpec>> = OAUTH_PROVIDERS) {
  const resolved = new Map<string, OAuthProviderLookup>();
  for (const [connectorType, spec] of Object.entries(specs)) {
    resolved.set(connectorType.toLowerCase(), resolve(connectorType, spec, env));
  }
  const providers: OAuthProviders = {
    lookup: (connectorType) => resolved.get(connectorType.toLowerCase()) ?? { status: 'unsupported' },
    configured: () => [...resolved.values()].flatMap((r) => (r.status === 'ok' ? [r.provider.connectorType] : [])),
  };
  return providers;
}

function resolve(connectorType: string, spec: OAuthProviderSpec, env: EnvSource): OAuthProviderLookup {
  const suffix = envSuffix(connectorType);
  const read = (name: string) => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  const missing: string[] = [];
  const required = (name: string) => {
    const value = read(name);
    if (value === undefined) missing.push(name);
    return value ?? '';
  };
  const clientId = required(`OAUTH_CLIENT_ID_${suffix}`);
  const clientSecret = required(`OAUTH_CLIENT_SECRET_${suffix}`);
  const envCredentials: Record<string, string> = {};
  for (const [field, source] of Object.entries(spec.credentials)) {
    if (source.from === 'env') envCredentials[field] = required(`OAUTH_${source.name}_${suffix}`);
  }
  if (missing.length > 0) return { status: 'not_configured', missing };
  return {
    status: 'ok',
    provider: {
      ...spec,
      connectorType,
      authorizeUrl: read(`OAUTH_AUTHORIZE_URL_${suffix}`) ?? spec.authorizeUrl,
      tokenUrl: read(`CONNECTOR_TOKEN_URL_${suffix}`) ?? spec.tokenUrl,
      clientId,
      clientSecret,
      envCredentials,
    },
  };
}

/**
 * The credentials a connector stores after a successful code exchange; fields the token response lacks
 * (a provider that issues no refresh token) are left out, and the kind's credentials schema decides.
 */
export function credentialsFrom(
  provider: OAuthProvider,
  tokens: { readonly access_token: string; readonly refresh_token?: string | undefined },
): Record<string, string> {
  const credentials: Record<string, string> = {};
  for (const [field, source] of Object.entries(provider.credentials)) {
    const value =
      source.from === 'token'
        ? tokens[source.field]
        : source.from === 'client'
          ? source.field === 'client_id'
            ? provider.clientId
            : provider.clientSecret
          : provider.envCredentials[field];
    if (value !== undefined) credentials[field] = value;
  }
  return credentials;
}
