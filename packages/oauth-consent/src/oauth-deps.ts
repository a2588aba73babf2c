import { type PlatformEnv, signingKeysFrom } from '@conduit/config';
import type { RedisClient } from '@conduit/queues';
import { OAUTH_PROVIDERS, type OAuthProviderSpec, type OAuthProviders, oauthProviders } from './oauth-providers.ts';
import { OAuthStates } from './oauth-state.ts';

/** What the consent flow needs beyond the app's deps; built from them unless a test or main.ts passes one. */
export interface OAuthDeps {
  readonly providers: OAuthProviders;
  readonly states: OAuthStates;
  /** The public address of GET .../oauth/callback, sent as redirect_uri at authorize and at the token exchange. */
  readonly callbackUrl: string;
  readonly now: () => Date;
  /** Token endpoint timeout. */
  readonly timeoutMs: number;
  readonly fetch: typeof fetch;
}

/** The app's deps the consent flow builds its own from (the API's deps satisfy it). */
export interface OAuthDepsSource {
  readonly env: PlatformEnv;
  readonly redis: RedisClient;
  readonly oauth?: OAuthDeps | undefined;
}

export const CALLBACK_PATH = '/api/v1/integrations/connectors/oauth/callback';
export const STATE_TTL_SECONDS = 600;

type EnvSource = Readonly<Record<string, string | undefined>>;

/**
 * Fallback source of OAuth settings for callers that pass none (runtime.ts passes the raw environment):
 * the process environment, with the keys PlatformEnv parsed taking precedence.
 */
function envSource(env: PlatformEnv): EnvSource {
  const merged: Record<string, string | undefined> = { ...process.env };
  for (const [key, value] of Object.entries(env)) {
    if (typeof value === 'string' || typeof value === 'number') merged[key] = String(value);
  }
  return merged;
}

/** OAuthDeps from the app's deps (Redis for single use and PKCE verifiers, the OAuth-state key derived from the signing secrets). */
export function oauthDepsFrom(
  deps: OAuthDepsSource,
  options: {
    now?: () => Date;
    source?: EnvSource;
    specs?: Readonly<Record<string, OAuthProviderSpec>>;
    fetch?: typeof fetch;
  } = {},
): OAuthDeps {
  if (deps.oauth) return deps.oauth;
  const source = options.source ?? envSource(deps.env);
  const now = options.now ?? (() => new Date());
  const base = (source.PUBLIC_BASE_URL?.trim() || `http://127.0.0.1:${deps.env.PORT}`).replace(/\/+$/, '');
  return {
    providers: oauthProviders(source, options.specs ?? OAUTH_PROVIDERS),
    states: new OAuthStates({
      signingKey: signingKeysFrom(deps.env).oauthState,
      redis: deps.redis,
      prefix: `${deps.env.NAMESPACE}:oauth`,
      ttlSeconds: STATE_TTL_SECONDS,
      now,
    }),
    callbackUrl: `${base}${CALLBACK_PATH}`,
    now,
    timeoutMs: deps.env.UPSTREAM_TIMEOUT_MS,
    fetch: options.fetch ?? globalThis.fetch,
  };
}
