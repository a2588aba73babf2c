import type { OAuthProvider } from '@conduit/platform';
import { z } from 'zod';

const TokenResponse = z.looseObject({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).optional(),
});

const TokenErrorResponse = z.looseObject({ error: z.string().regex(/^[\w.-]{1,64}$/) });

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

/** RFC 6749 §4.1.3: the authorization code for tokens, with client authentication and the PKCE verifier. */
export async function exchangeCode(exchange: CodeExchange): Promise<ExchangeResult> {
  const { provider } = exchange;
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code: exchange.code,
    redirect_uri: exchange.redirectUri,
  });
  if (exchange.codeVerifier) form.set('code_verifier', exchange.codeVerifier);
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (provider.clientAuth === 'basic') {
    const basic = `${encodeURIComponent(provider.clientId)}:${encodeURIComponent(provider.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(basic).toString('base64')}`;
  } else {
    form.set('client_id', provider.clientId);
    form.set('client_secret', provider.clientSecret);
  }
  let response: Response;
  try {
    response = await exchange.fetch(exchange.tokenUrl, {
      method: 'POST',
      headers,
      body: form.toString(),
      redirect: 'error',
      signal: AbortSignal.timeout(exchange.timeoutMs),
    });
  } catch {
    return { status: 'failed', description: 'the provider token endpoint did not answer' };
  }
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    const error = TokenErrorResponse.safeParse(body);
    const reason = error.success ? `: ${error.data.error}` : '';
    return { status: 'failed', description: `the provider refused the code (${response.status}${reason})` };
  }
  const tokens = TokenResponse.safeParse(body);
  if (!tokens.success) return { status: 'failed', description: 'the provider token response holds no access_token' };
  return {
    status: 'ok',
    tokens: {
      access_token: tokens.data.access_token,
      ...(tokens.data.refresh_token ? { refresh_token: tokens.data.refresh_token } : {}),
    },
  };
}
