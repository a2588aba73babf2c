import { listen, type RunningServer } from '../kit/server.ts';
import { createOAuthProviderApp, type OAuthProviderState } from './app.ts';

export interface OAuthProviderSimulator extends RunningServer {
  readonly state: OAuthProviderState;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The value for OAUTH_AUTHORIZE_URL_<KIND>. */
  readonly authorizeUrl: string;
  /** The value for CONNECTOR_TOKEN_URL_<KIND>. */
  readonly tokenUrl: string;
  /** The value for CONNECTOR_BASE_URL_<KIND> when the kind's credential check is one of `resources`. */
  readonly baseUrl: string;
}

export interface OAuthProviderOptions {
  readonly port?: number;
  readonly clientId?: string;
  readonly clientSecret?: string;
  /** API paths answered for a valid access token, e.g. `{'/forms': {total_items: 0, page_count: 0, items: []}}`. */
  readonly resources?: Readonly<Record<string, unknown>>;
}

/** Starts the generic OAuth provider (see app.ts) on a free port. */
export async function startOAuthProvider(options: OAuthProviderOptions = {}): Promise<OAuthProviderSimulator> {
  const state: OAuthProviderState = {
    clientId: options.clientId ?? 'sim-oauth-client',
    clientSecret: options.clientSecret ?? 'sim-oauth-client-secret-0123456789',
    codes: new Map(),
    accessTokens: new Set(),
    refreshTokens: new Set(),
    tokenRequests: [],
    authorizeRequests: [],
    resources: options.resources ?? {},
    issueRefreshTokens: true,
  };
  const server = await listen(createOAuthProviderApp(state), options.port ?? 0);
  return {
    ...server,
    state,
    clientId: state.clientId,
    clientSecret: state.clientSecret,
    authorizeUrl: `${server.url}/authorize`,
    tokenUrl: `${server.url}/token`,
    baseUrl: server.url,
  };
}
