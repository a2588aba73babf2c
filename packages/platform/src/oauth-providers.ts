import { envSuffix, findConnectorDefinition, SUBDOMAIN_PATTERN } from '@conduit/connectors';

/** The kind's token endpoint, stated once in its catalog. */
function tokenUrlOf(connectorType: string): string {
  const url = findConnectorDefinition(connectorType)?.catalog.tokenUrl;
  if (!url) throw new Error(`${connectorType}: the catalog names no tokenUrl`);
  return url;
}

/**
 * Where one credential field of a connector created by the OAuth consent flow comes from:
 * the provider's token response, the platform's OAuth client, or a platform-wide secret in the environment
 * (`OAUTH_<name>_<KIND>`, e.g. Google Ads' developer token).
 */
export type CredentialSource =
  | { readonly from: 'token'; readonly field: 'access_token' | 'refresh_token' }
  | { readonly from: 'client'; readonly field: 'client_id' | 'client_secret' }
  | { readonly from: 'env'; readonly name: string };

/** One vendor's OAuth 2.0 authorization-code settings. URLs may contain `{subdomain}` (Zendesk). */
export interface OAuthProviderSpec {
  readonly authorizeUrl: string;
  readonly tokenUrl: string;
  readonly scopes: readonly string[];
  /** Proof Key for Code Exchange (RFC 7636, S256) where the vendor documents it. */
  readonly pkce: boolean;
  /** How the client authenticates at the token endpoint: form fields or HTTP Basic. */
  readonly clientAuth: 'form' | 'basic';
  /** Extra authorize parameters, e.g. Google's access_type=offline to receive a refresh token. */
  readonly authorizeParams: Readonly<Record<string, string>>;
  /** Credential fields of the connector, and where each comes from. */
  readonly credentials: Readonly<Record<string, CredentialSource>>;
}

const token = (field: 'access_token' | 'refresh_token'): CredentialSource => ({ from: 'token', field });
const client = (field: 'client_id' | 'client_secret'): CredentialSource => ({ from: 'client', field });

/** access_token + refresh_token + the client that refreshes them: what every refreshing connector stores. */
const REFRESHING_CREDENTIALS = {
  access_token: token('access_token'),
  refresh_token: token('refresh_token'),
  client_id: client('client_id'),
  client_secret: client('client_secret'),
} as const;

const GOOGLE = {
  authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
  tokenUrl: tokenUrlOf('Google-Drive'),
  pkce: true,
  clientAuth: 'form',
  // Without offline access and a forced consent prompt, Google omits the refresh token on re-consent
  // (https://developers.google.com/identity/protocols/oauth2/web-server#offline).
  authorizeParams: { access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true' },
} as const;

/**
 * The kinds whose vendor offers an authorization-code flow, by canonical connector_type. Payments (PayPal) is
 * client-credentials only; Orb, Sentry and incident.io take API keys: they are absent on purpose.
 */
export const OAUTH_PROVIDERS: Readonly<Record<string, OAuthProviderSpec>> = {
  // https://developer.zendesk.com/api-reference/ticketing/oauth/oauth_tokens/ — PKCE since 2023.
  'Zendesk-Talk': {
    authorizeUrl: 'https://{subdomain}.zendesk.com/oauth/authorizations/new',
    tokenUrl: tokenUrlOf('Zendesk-Talk'),
    scopes: ['read'],
    pkce: true,
    clientAuth: 'form',
    authorizeParams: {},
    credentials: REFRESHING_CREDENTIALS,
  },
  // https://www.typeform.com/developers/get-started/applications/ — `offline` grants the refresh token.
  Typeform: {
    authorizeUrl: 'https://api.typeform.com/oauth/authorize',
    tokenUrl: tokenUrlOf('Typeform'),
    scopes: [
      'offline',
      'accounts:read',
      'forms:read',
      'responses:read',
      'webhooks:read',
      'workspaces:read',
      'images:read',
      'themes:read',
    ],
    pkce: false,
    clientAuth: 'form',
    authorizeParams: {},
    credentials: REFRESHING_CREDENTIALS,
  },
  'Google-Ads': {
    ...GOOGLE,
    tokenUrl: tokenUrlOf('Google-Ads'),
    scopes: ['https://www.googleapis.com/auth/adwords'],
    // Every Google Ads call also sends the platform's developer token (OAUTH_DEVELOPER_TOKEN_GOOGLE_ADS).
    credentials: { ...REFRESHING_CREDENTIALS, developer_token: { from: 'env', name: 'DEVELOPER_TOKEN' } },
  },
  'Google-Drive': {
    ...GOOGLE,
    scopes: ['https://www.googleapis.com/auth/drive'],
    credentials: REFRESHING_CREDENTIALS,
  },
  // https://developers.snap.com/api/marketing-api/Ads-API/authentication
  'Snapchat-Marketing': {
    authorizeUrl: 'https://accounts.snapchat.com/login/oauth2/authorize',
    tokenUrl: tokenUrlOf('Snapchat-Marketing'),
    scopes: ['snapchat-marketing-api'],
    pkce: false,
    clientAuth: 'form',
    authorizeParams: {},
    credentials: REFRESHING_CREDENTIALS,
  },
};

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
 * Fills `{name}` placeholders of a provider URL from the connector config; only validated subdomains go in
 * (docs/api.md). Returns the missing or invalid variable names instead when it cannot.
 */
export function expandProviderUrl(
  template: string,
  config: Readonly<Record<string, unknown>>,
): { url: string } | { invalid: string[] } {
  const invalid: string[] = [];
  const url = template.replaceAll(/\{(\w+)\}/g, (_, name: string) => {
    const value = config[name];
    if (typeof value !== 'string' || !SUBDOMAIN_PATTERN.test(value)) {
      invalid.push(name);
      return '';
    }
    return encodeURIComponent(value);
  });
  return invalid.length > 0 ? { invalid } : { url };
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
