import { requestTokens, UpstreamError } from '@conduit/connectors';
import type { OAuthProvider } from './oauth-providers.ts';

export interface CodeExchange {
  readonly provider: OAuthProvider;
  /** The provider's token URL with its placeholders already filled. */
  readonly tokenUrl: string;
  readonly code: string;
  readonly redirectUri: string;
  readonly codeVerifier: string | undefined;
  readonly timeoutMs: number;
  readonly fetch: typeof fetch;
}

export type ExchangeResult =
  | { readonly status: 'ok'; readonly tokens: { access_token: string; refresh_token?: string | undefined } }
  /** `description` is safe to show the user: it never holds the provider's body, only its OAuth error code. */
  | { readonly status: 'failed'; readonly description: string };

/**
 * RFC 6749 §4.1.3: the authorization code for tokens, with client authentication and the PKCE verifier. The
 * answer is validated by the shared token-endpoint client (oauth4webapi): a non-JSON or malformed answer is a
 * failed exchange, never an exception.
 */
export async function exchangeCode(exchange: CodeExchange): Promise<ExchangeResult> {
  const { provider } = exchange;
  try {
    const tokens = await requestTokens({
      tokenUrl: exchange.tokenUrl,
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      clientAuth: provider.clientAuth,
      grant: {
        type: 'authorization_code',
        code: exchange.code,
        redirectUri: exchange.redirectUri,
        codeVerifier: exchange.codeVerifier,
      },
      fetch: exchange.fetch,
      signal: AbortSignal.timeout(exchange.timeoutMs),
    });
    return {
      status: 'ok',
      tokens: {
        access_token: tokens.access_token,
        ...(tokens.refresh_token ? { refresh_token: tokens.refresh_token } : {}),
      },
    };
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    if (error.upstreamStatus === null)
      return { status: 'failed', description: 'the provider token endpoint did not answer' };
    // The message holds the status and, for an OAuth error body, its short error code; never the body.
    return { status: 'failed', description: `the token exchange failed: ${error.message}` };
  }
}
