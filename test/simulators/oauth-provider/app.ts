import { createHash, randomBytes } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { basicCredentials, bearerToken } from '../kit/auth-header.ts';

interface IssuedCode {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly scope: string;
  readonly codeChallenge: string | undefined;
  readonly expiresAt: number;
}

export interface TokenRequestRecord {
  readonly grantType: string;
  readonly clientAuth: 'basic' | 'form' | 'none';
  readonly redirectUri: string | undefined;
  readonly codeVerifier: string | undefined;
  readonly outcome: 'issued' | string;
}

export interface OAuthProviderState {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Codes not yet exchanged (a code works once). */
  readonly codes: Map<string, IssuedCode>;
  readonly accessTokens: Set<string>;
  readonly refreshTokens: Set<string>;
  /** Every token endpoint call, for assertions (no secrets recorded). */
  readonly tokenRequests: TokenRequestRecord[];
  /** Every authorize call's query, for assertions. */
  readonly authorizeRequests: URLSearchParams[];
  /** Upstream API paths answered for a valid bearer access token (the kind's cheap list call). */
  readonly resources: Readonly<Record<string, unknown>>;
  /** When false, the token endpoint omits refresh_token. */
  issueRefreshTokens: boolean;
  /** When set, the next token request gets this answer instead (a misbehaving provider: an HTML 200, ...). */
  nextTokenAnswer?: { status: number; contentType: string; body: string } | undefined;
}

const CODE_LIFETIME_MS = 60_000;

const token = (prefix: string) => `${prefix}_${randomBytes(18).toString('base64url')}`;

/**
 * A generic OAuth 2.0 authorization server (RFC 6749 + RFC 7636) that can stand in for any kind's vendor:
 * /authorize redirects the browser back with a code (or `error=access_denied` when the simulated user declines,
 * `simulated_decision=deny`), /token exchanges a code once, checking client authentication (form or Basic),
 * redirect_uri and the PKCE S256 verifier, and issues access + refresh tokens. It also serves `resources`, so
 * a connector's credential check can run against it with the access token it issued.
 */
export function createOAuthProviderApp(state: OAuthProviderState): Hono {
  const app = new Hono();

  app.get('/authorize', (c) => {
    const query = new URL(c.req.url).searchParams;
    state.authorizeRequests.push(query);
    const redirectUri = query.get('redirect_uri');
    // RFC 6749 §4.1.2.1: never redirect to an unverified redirect_uri or for an unknown client.
    if (query.get('client_id') !== state.clientId || !redirectUri) {
      return c.text('unknown client or missing redirect_uri', 400);
    }
    const back = new URL(redirectUri);
    const stateParam = query.get('state');
    if (stateParam !== null) back.searchParams.set('state', stateParam);
    if (query.get('simulated_decision') === 'deny') {
      back.searchParams.set('error', 'access_denied');
      back.searchParams.set('error_description', 'The user denied access');
      return c.redirect(back.toString(), 302);
    }
    if (query.get('response_type') !== 'code') {
      back.searchParams.set('error', 'unsupported_response_type');
      return c.redirect(back.toString(), 302);
    }
    const challenge = query.get('code_challenge') ?? undefined;
    if (challenge && query.get('code_challenge_method') !== 'S256') {
      back.searchParams.set('error', 'invalid_request');
      back.searchParams.set('error_description', 'only S256 is supported');
      return c.redirect(back.toString(), 302);
    }
    const code = token('code');
    state.codes.set(code, {
      clientId: state.clientId,
      redirectUri,
      scope: query.get('scope') ?? '',
      codeChallenge: challenge,
      expiresAt: Date.now() + CODE_LIFETIME_MS,
    });
    back.searchParams.set('code', code);
    return c.redirect(back.toString(), 302);
  });

  app.post('/token', async (c) => {
    const form = new URLSearchParams(await c.req.text());
    const auth = clientAuthOf(c, form);
    const record = (outcome: string) =>
      state.tokenRequests.push({
        grantType: form.get('grant_type') ?? '',
        clientAuth: auth.method,
        redirectUri: form.get('redirect_uri') ?? undefined,
        codeVerifier: form.get('code_verifier') ?? undefined,
        outcome,
      });
    const planted = state.nextTokenAnswer;
    if (planted) {
      state.nextTokenAnswer = undefined;
      record('planted');
      return c.body(planted.body, planted.status as 200, { 'content-type': planted.contentType });
    }
    if (auth.clientId !== state.clientId || auth.clientSecret !== state.clientSecret) {
      record('invalid_client');
      return c.json({ error: 'invalid_client', error_description: 'client authentication failed' }, 401);
    }
    const grant = form.get('grant_type');
    if (grant === 'refresh_token') {
      const presented = form.get('refresh_token') ?? '';
      if (!state.refreshTokens.delete(presented)) return oauthError(c, record, 'invalid_grant');
      record('issued');
      return c.json(issueTokens(state));
    }
    if (grant !== 'authorization_code') return oauthError(c, record, 'unsupported_grant_type');
    const code = form.get('code') ?? '';
    const issued = state.codes.get(code);
    state.codes.delete(code);
    if (!issued || issued.expiresAt < Date.now()) return oauthError(c, record, 'invalid_grant');
    if (form.get('redirect_uri') !== issued.redirectUri) return oauthError(c, record, 'invalid_grant');
    if (issued.codeChallenge !== undefined) {
      const verifier = form.get('code_verifier') ?? '';
      const computed = createHash('sha256').update(verifier).digest('base64url');
      if (computed !== issued.codeChallenge) return oauthError(c, record, 'invalid_grant');
    }
    record('issued');
    return c.json(issueTokens(state));
  });

  app.get('*', (c) => {
    const path = new URL(c.req.url).pathname;
    if (!(path in state.resources)) return c.json({ error: 'not_found' }, 404);
    const bearer = bearerToken(c.req.header('authorization'));
    if (!bearer || !state.accessTokens.has(bearer)) return c.json({ error: 'unauthorized' }, 401);
    return c.json(state.resources[path]);
  });

  return app;
}

function issueTokens(state: OAuthProviderState) {
  const accessToken = token('at');
  state.accessTokens.add(accessToken);
  const body: Record<string, unknown> = { access_token: accessToken, token_type: 'Bearer', expires_in: 3600 };
  if (state.issueRefreshTokens) {
    const refreshToken = token('rt');
    state.refreshTokens.add(refreshToken);
    body.refresh_token = refreshToken;
  }
  return body;
}

function oauthError(c: Context, record: (outcome: string) => void, error: string) {
  record(error);
  return c.json({ error }, 400);
}

function clientAuthOf(c: Context, form: URLSearchParams) {
  const basic = basicCredentials(c.req.header('authorization'));
  if (basic) {
    // RFC 6749 §2.3.1: the id and secret are form-encoded before Basic.
    const decode = (v: string) => decodeURIComponent(v.replaceAll('+', ' '));
    return { method: 'basic' as const, clientId: decode(basic.user), clientSecret: decode(basic.password) };
  }
  const clientId = form.get('client_id');
  if (clientId === null) return { method: 'none' as const, clientId: undefined, clientSecret: undefined };
  return { method: 'form' as const, clientId, clientSecret: form.get('client_secret') ?? undefined };
}
