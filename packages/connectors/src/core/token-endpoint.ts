import * as oauth from 'oauth4webapi';
import { UpstreamError } from './errors.ts';

/** How the client authenticates at the token endpoint: form fields (Google, Snap) or HTTP Basic (RFC 6749 §2.3.1). */
export type TokenClientAuth = 'form' | 'basic';

export type TokenGrant =
  | { readonly type: 'refresh_token'; readonly refreshToken: string }
  | { readonly type: 'client_credentials' }
  | {
      readonly type: 'authorization_code';
      readonly code: string;
      readonly redirectUri: string;
      readonly codeVerifier?: string | undefined;
    };

export interface TokenRequest {
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret?: string | undefined;
  readonly clientAuth: TokenClientAuth;
  readonly grant: TokenGrant;
  readonly fetch?: typeof fetch | undefined;
  /** Bounds the whole exchange; the default is 30 s. */
  readonly signal?: AbortSignal | undefined;
}

export interface TokenSet {
  readonly access_token: string;
  readonly refresh_token?: string | undefined;
  readonly expires_in?: number | undefined;
}

/**
 * One request to an OAuth 2.0 token endpoint, its answer validated by oauth4webapi (RFC 6749 §5.1: a JSON object
 * with a string `access_token` and `token_type`, a numeric `expires_in`, ...). Every way it can go wrong is an
 * UpstreamError, never an exception of our own:
 * - the provider refused the grant (an OAuth error body, a 400/401/403): `upstream_auth_failed`;
 * - it answered something that is not a token response (HTML, a 5xx, a 429, a 200 without `access_token`) or did
 *   not answer: `upstream_error`, which callers treat as transient.
 * The message never holds the provider's body (it may echo a secret), only its status and OAuth error code.
 */
export async function requestTokens(request: TokenRequest): Promise<TokenSet> {
  const url = new URL(request.tokenUrl);
  const as: oauth.AuthorizationServer = { issuer: url.origin, token_endpoint: url.href };
  const client: oauth.Client = { client_id: request.clientId };
  const secret = request.clientSecret ?? '';
  const clientAuth =
    request.clientAuth === 'basic'
      ? rawBasic(request.clientId, secret)
      : secret
        ? oauth.ClientSecretPost(secret)
        : oauth.None();
  const doFetch = request.fetch ?? fetch;
  const options: oauth.TokenEndpointRequestOptions = {
    // The token URL is operator configuration (CONNECTOR_TOKEN_URL_<KIND>); plain http is allowed for local upstreams.
    [oauth.allowInsecureRequests]: url.protocol === 'http:',
    [oauth.customFetch]: (input, init) => doFetch(input, init as RequestInit),
    signal: request.signal ?? AbortSignal.timeout(30_000),
  };
  let response: Response;
  try {
    const grant = request.grant;
    if (grant.type === 'refresh_token') {
      response = await oauth.refreshTokenGrantRequest(as, client, clientAuth, grant.refreshToken, options);
    } else if (grant.type === 'client_credentials') {
      response = await oauth.clientCredentialsGrantRequest(as, client, clientAuth, new URLSearchParams(), options);
    } else {
      // The callback route checked `state` itself (signed, single use); this brands the code for oauth4webapi.
      const parameters = oauth.validateAuthResponse(
        as,
        client,
        new URLSearchParams({ code: grant.code }),
        oauth.skipStateCheck,
      );
      response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        clientAuth,
        parameters,
        grant.redirectUri,
        grant.codeVerifier ?? oauth.nopkce,
        options,
      );
    }
  } catch (error) {
    throw new UpstreamError('upstream_error', `the token endpoint is unreachable: ${reason(error)}`, null, null);
  }

  try {
    const body =
      request.grant.type === 'refresh_token'
        ? await oauth.processRefreshTokenResponse(as, client, response)
        : request.grant.type === 'client_credentials'
          ? await oauth.processClientCredentialsResponse(as, client, response)
          : await oauth.processAuthorizationCodeResponse(as, client, response);
    return {
      access_token: body.access_token,
      ...(body.refresh_token ? { refresh_token: body.refresh_token } : {}),
      ...(body.expires_in !== undefined ? { expires_in: body.expires_in } : {}),
    };
  } catch (error) {
    await response.body?.cancel().catch(() => undefined);
    throw classify(error, response.status);
  }
}

/**
 * HTTP Basic with the id and secret as they are. RFC 6749 §2.3.1 form-encodes them first (oauth4webapi's
 * ClientSecretBasic turns every '-' into %2D), but the vendors document and accept the plain pair (PayPal:
 * `curl -u "CLIENT_ID:CLIENT_SECRET"`), and their ids hold '-' and '_'.
 */
function rawBasic(clientId: string, secret: string): oauth.ClientAuth {
  const encoded = Buffer.from(`${clientId}:${secret}`).toString('base64');
  return (_as, _client, _body, headers) => {
    headers.set('authorization', `Basic ${encoded}`);
  };
}

const REFUSED_STATUSES = new Set([400, 401, 403]);

function classify(error: unknown, status: number): UpstreamError {
  if (error instanceof oauth.ResponseBodyError) {
    // RFC 6749 §5.2 error codes are short ASCII tokens; anything else is not echoed.
    const code = /^[\w.-]{1,64}$/.test(error.error) ? `: ${error.error}` : '';
    const kind = REFUSED_STATUSES.has(status) ? 'upstream_auth_failed' : 'upstream_error';
    return new UpstreamError(kind, `the token endpoint refused the request (${status}${code})`, status, null);
  }
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    return new UpstreamError('upstream_auth_failed', `the token endpoint refused the client (${status})`, status, null);
  }
  if (status !== 200 && REFUSED_STATUSES.has(status)) {
    return new UpstreamError(
      'upstream_auth_failed',
      `the token endpoint refused the request (${status})`,
      status,
      null,
    );
  }
  if (status !== 200) {
    return new UpstreamError('upstream_error', `the token endpoint answered ${status}`, status, null);
  }
  const detail = error instanceof Error ? `: ${error.message.replaceAll('"', "'")}` : '';
  return new UpstreamError(
    'upstream_error',
    `the token endpoint answered with a malformed token response${detail}`,
    status,
    null,
  );
}

function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'it did not answer in time';
  return error.cause instanceof Error ? error.cause.message : error.message;
}
