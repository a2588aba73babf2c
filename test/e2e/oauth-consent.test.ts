import { createHmac } from 'node:crypto';
import { type ApiDeps, buildApp } from '@conduit/api';
import { hashClientSecret } from '@conduit/config';
import { findConnectorDefinition } from '@conduit/connectors';
import { OAUTH_PROVIDERS, type OAuthDeps, type OAuthProviderSpec, oauthDepsFrom } from '@conduit/oauth-consent';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { listen } from '../simulators/kit/server.ts';
import { type OAuthProviderSimulator, startOAuthProvider } from '../simulators/oauth-provider/simulator.ts';

const REDIRECT_URL = 'https://app.example.test/oauth/done';
const CALLBACK_PATH = '/api/v1/integrations/connectors/oauth/callback';

/**
 * Orb takes API keys; here it stands in for "a kind whose vendor offers OAuth" (PKCE, HTTP Basic client auth),
 * because it is the kind every build registers. Provider settings are data: this is all it takes.
 */
const ORB_AS_OAUTH: OAuthProviderSpec = {
  authorizeUrl: 'https://orb.invalid/authorize',
  tokenUrl: 'https://orb.invalid/token',
  scopes: ['read'],
  pkce: true,
  clientAuth: 'basic',
  authorizeParams: { access_type: 'offline' },
  credentials: { api_key: { from: 'token', field: 'access_token' } },
};

interface ConsentServer {
  readonly url: string;
  readonly oauth: OAuthDeps;
  close(): Promise<void>;
}

/**
 * The platform's app with OAuth deps for the provider simulator and an adjustable clock, served on its own port
 * so that PUBLIC_BASE_URL (the callback the provider redirects to) is exactly this server.
 */
async function serveConsentApp(
  platform: TestPlatform,
  provider: OAuthProviderSimulator,
  now: () => Date,
): Promise<ConsentServer> {
  let handler: (request: Request) => Response | Promise<Response> = () => new Response('starting', { status: 503 });
  const router = new Hono();
  router.all('*', (c) => handler(c.req.raw));
  const server = await listen(router);
  const env: Record<string, string> = { PUBLIC_BASE_URL: server.url };
  for (const kind of ['ORB', 'TYPEFORM']) {
    env[`OAUTH_CLIENT_ID_${kind}`] = provider.clientId;
    env[`OAUTH_CLIENT_SECRET_${kind}`] = provider.clientSecret;
    env[`OAUTH_AUTHORIZE_URL_${kind}`] = provider.authorizeUrl;
    env[`CONNECTOR_TOKEN_URL_${kind}`] = provider.tokenUrl;
  }
  const oauth = oauthDepsFrom(
    { ...platform.api.deps, oauth: undefined },
    {
      source: env,
      now,
      specs: { ...OAUTH_PROVIDERS, Orb: ORB_AS_OAUTH },
    },
  );
  const deps: ApiDeps & { oauth: OAuthDeps } = { ...platform.api.deps, oauth };
  handler = buildApp(deps).fetch;
  return { ...server, oauth };
}

/** One browser hop: the Location of a redirect. */
async function follow(url: string): Promise<URL> {
  const response = await fetch(url, { redirect: 'manual' });
  expect(response.status, await response.clone().text()).toBe(302);
  return new URL(response.headers.get('location') ?? '');
}

describe('OAuth consent flow: initiate, provider consent, callback creates the connector', () => {
  let provider: OAuthProviderSimulator;
  let platform: TestPlatform;
  let app: ConsentServer;
  let clock = Date.now();

  const initiate = async (body: Record<string, unknown>, base = app.url) =>
    fetch(`${base}/api/v1/integrations/connectors/oauth/initiate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await platform.token()}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  /** initiate → provider /authorize (the user decides) → the callback URL the provider sent the browser to. */
  const consent = async (body: Record<string, unknown>, decision: 'approve' | 'deny' = 'approve') => {
    const response = await initiate(body);
    expect(response.status, await response.clone().text()).toBe(200);
    const started = (await response.json()) as { consent_url: string; state: string; expires_at: string };
    const consentUrl = new URL(started.consent_url);
    if (decision === 'deny') consentUrl.searchParams.set('simulated_decision', 'deny');
    return { started, consentUrl, callback: await follow(consentUrl.toString()) };
  };

  beforeAll(async () => {
    provider = await startOAuthProvider({
      resources: {
        '/customers': { data: [], pagination_metadata: { has_more: false, next_cursor: null } },
        '/forms': { total_items: 0, page_count: 0, items: [] },
      },
    });
    platform = await startTestPlatform({
      worker: false,
      overrides: { baseUrls: { ORB: provider.baseUrl, TYPEFORM: provider.baseUrl }, tokenUrls: {} },
    });
    await platform.api.deps.clients.upsertClient({
      client_id: platform.clientId,
      secret_hash: await hashClientSecret(platform.clientSecret),
      name: 'oauth test client',
      allowed_redirect_urls: [REDIRECT_URL, 'https://other.example.test/elsewhere'],
    });
    app = await serveConsentApp(platform, provider, () => new Date(clock));
  });

  afterAll(async () => {
    await app?.close();
    await platform?.close();
    await provider?.close();
  });

  it('creates the connector and redirects to redirect_url?connector_id=…, never exposing the tokens', async () => {
    const { started, consentUrl, callback } = await consent({
      customer_name: 'acme',
      connector_type: 'orb',
      name: 'billing via oauth',
      redirect_url: REDIRECT_URL,
    });
    expect(consentUrl.origin + consentUrl.pathname).toBe(provider.authorizeUrl);
    expect(Object.fromEntries(consentUrl.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: provider.clientId,
      redirect_uri: `${app.url}${CALLBACK_PATH}`,
      scope: 'read',
      access_type: 'offline',
      state: started.state,
      code_challenge_method: 'S256',
    });
    expect(consentUrl.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(consentUrl.toString()).not.toContain('code_verifier');
    const expiresIn = Date.parse(started.expires_at) - clock;
    expect(expiresIn).toBeGreaterThan(9 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(10 * 60_000);
    expect(callback.origin + callback.pathname).toBe(`${app.url}${CALLBACK_PATH}`);

    const done = await follow(callback.toString());
    expect(done.origin + done.pathname).toBe(REDIRECT_URL);
    const connectorId = done.searchParams.get('connector_id');
    expect(connectorId).toMatch(/^[0-9a-f-]{36}$/);
    expect(done.searchParams.get('error')).toBeNull();

    const exchange = provider.state.tokenRequests.at(-1);
    expect(exchange).toMatchObject({
      grantType: 'authorization_code',
      clientAuth: 'basic',
      redirectUri: `${app.url}${CALLBACK_PATH}`,
      outcome: 'issued',
    });
    expect(exchange?.codeVerifier).toMatch(/^[\w-]{43}$/);

    const view = await platform.call('GET', `/api/v1/integrations/connectors/${connectorId}`);
    expect(view.status).toBe(200);
    const text = await view.text();
    expect(JSON.parse(text)).toMatchObject({
      connector_id: connectorId,
      connector_type: 'Orb',
      customer_name: 'acme',
      name: 'billing via oauth',
      replication_config: { start_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T00:00:00Z$/) },
    });
    for (const secret of [...provider.state.accessTokens, ...provider.state.refreshTokens, provider.clientSecret]) {
      expect(text).not.toContain(secret);
      expect(done.toString()).not.toContain(secret);
      expect(platform.logLines.join('\n')).not.toContain(secret);
    }

    // The stored credentials are the issued access token: a live call reaches the provider with it.
    const live = await platform.call('POST', `/api/v1/integrations/connectors/${connectorId}/execute`, {
      entity: 'customers',
      action: 'list',
      params: {},
    });
    expect(live.status).toBe(200);
  });

  it('refuses a replayed state with a redirect carrying error=state_replayed', async () => {
    const { callback } = await consent({ customer_name: 'replay', connector_type: 'Orb', redirect_url: REDIRECT_URL });
    expect((await follow(callback.toString())).searchParams.get('connector_id')).toBeTruthy();
    const again = await follow(callback.toString());
    expect(again.origin + again.pathname).toBe(REDIRECT_URL);
    expect(again.searchParams.get('error')).toBe('state_replayed');
    expect(again.searchParams.get('connector_id')).toBeNull();
  });

  it('refuses an expired state (10 minutes) with error=expired_state', async () => {
    const { callback } = await consent({ customer_name: 'slow', connector_type: 'Orb', redirect_url: REDIRECT_URL });
    const exchanges = provider.state.tokenRequests.length;
    clock += 10 * 60_000 + 1000;
    try {
      const done = await follow(callback.toString());
      expect(done.searchParams.get('error')).toBe('expired_state');
      expect(done.searchParams.get('error_description')).toBeTruthy();
    } finally {
      clock = Date.now();
    }
    expect(provider.state.tokenRequests.length).toBe(exchanges);
  });

  it('answers a forged or missing state with problem+json 400, redirecting nowhere', async () => {
    const { started } = await consent({ customer_name: 'forge', connector_type: 'Orb', redirect_url: REDIRECT_URL });
    const [header, payload] = started.state.split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as Record<string, unknown>;
    const tampered = Buffer.from(JSON.stringify({ ...claims, redirect_url: 'https://evil.example/steal' })).toString(
      'base64url',
    );
    const unsigned = `${header}.${tampered}`;
    const otherKey = `${unsigned}.${createHmac('sha256', 'not-the-platform-signing-key').update(unsigned).digest('base64url')}`;
    for (const state of [`${header}.${tampered}.${started.state.split('.')[2]}`, otherKey, 'garbage', '']) {
      const response = await fetch(`${app.url}${CALLBACK_PATH}?code=abc&state=${encodeURIComponent(state)}`, {
        redirect: 'manual',
      });
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(await response.json()).toMatchObject({ status: 400, code: 'invalid_state' });
    }
  });

  it('refuses a redirect_url the client did not register (400 naming /redirect_url)', async () => {
    for (const redirect of [
      'https://evil.example/oauth/done',
      'https://app.example.test/oauth/other',
      'http://app.example.test/oauth/done',
      `${REDIRECT_URL}#fragment`,
      'javascript:alert(1)',
    ]) {
      const response = await initiate({ customer_name: 'acme', connector_type: 'Orb', redirect_url: redirect });
      expect(response.status, redirect).toBe(400);
      const problem = (await response.json()) as { errors: { path: string }[] };
      expect(problem.errors.map((e) => e.path)).toContain('/redirect_url');
    }
    // Same origin and path with a query of the caller's own is allowed, and the query is kept.
    const { callback } = await consent({
      customer_name: 'query',
      connector_type: 'Orb',
      redirect_url: `${REDIRECT_URL}?tab=integrations`,
    });
    const done = await follow(callback.toString());
    expect(done.searchParams.get('tab')).toBe('integrations');
    expect(done.searchParams.get('connector_id')).toBeTruthy();
  });

  it('redirects with error=access_denied when the user declines, creating nothing', async () => {
    const { callback } = await consent(
      { customer_name: 'declines', connector_type: 'Orb', redirect_url: REDIRECT_URL },
      'deny',
    );
    expect(callback.searchParams.get('error')).toBe('access_denied');
    const done = await follow(callback.toString());
    expect(done.origin + done.pathname).toBe(REDIRECT_URL);
    expect(done.searchParams.get('error')).toBe('access_denied');
    expect(done.searchParams.get('error_description')).toBe('The user denied access');
    const rows = await platform.api.deps.connectors.listByOrganization(platform.organizationId);
    expect(rows.some((r) => r.customer_name === 'declines')).toBe(false);
  });

  it('redirects with error=token_exchange_failed when the provider refuses the code', async () => {
    const { callback } = await consent({ customer_name: 'stolen', connector_type: 'Orb', redirect_url: REDIRECT_URL });
    // Someone else redeems the code first: codes work once.
    provider.state.codes.clear();
    const done = await follow(callback.toString());
    expect(done.searchParams.get('error')).toBe('token_exchange_failed');
    expect(done.searchParams.get('error_description')).toContain('invalid_grant');
  });

  it('redirects with error=token_exchange_failed when the token endpoint answers a non-JSON or malformed 200', async () => {
    const answers = [
      { status: 200, contentType: 'text/html', body: '<html>maintenance</html>' },
      { status: 200, contentType: 'application/json', body: '{"token_type":"Bearer"}' },
      { status: 200, contentType: 'application/json', body: '{"access_token":7,"token_type":"Bearer"}' },
      { status: 502, contentType: 'text/html', body: '<html>bad gateway</html>' },
    ];
    for (const [i, answer] of answers.entries()) {
      const { callback } = await consent({
        customer_name: `malformed-${i}`,
        connector_type: 'Orb',
        redirect_url: REDIRECT_URL,
      });
      provider.state.nextTokenAnswer = answer;
      const done = await follow(callback.toString());
      expect(done.origin + done.pathname, answer.body).toBe(REDIRECT_URL);
      expect(done.searchParams.get('error'), answer.body).toBe('token_exchange_failed');
    }
  });

  it('refuses a duplicate connector at initiate (409) and at the callback (error=connector_exists)', async () => {
    const body = { customer_name: 'twice', connector_type: 'Orb', name: 'one', redirect_url: REDIRECT_URL };
    const first = await consent(body);
    const second = await consent(body);
    expect((await follow(first.callback.toString())).searchParams.get('connector_id')).toBeTruthy();
    expect((await follow(second.callback.toString())).searchParams.get('error')).toBe('connector_exists');
    expect((await initiate(body)).status).toBe(409);
  });

  it('answers 400 naming /connector_type for kinds without an OAuth consent flow', async () => {
    // The platform as deployed (its own OAuth settings): Orb takes an API key.
    const orb = await initiate(
      { customer_name: 'acme', connector_type: 'Orb', redirect_url: REDIRECT_URL },
      platform.url,
    );
    expect(orb.status).toBe(400);
    const problem = (await orb.json()) as { code: string; errors: { path: string; message: string }[] };
    expect(problem.errors[0]).toMatchObject({ path: '/connector_type' });
    for (const kind of ['Paypal-Transaction', 'Sentry', 'Incident-Io', 'No-Such-Kind']) {
      const response = await initiate({ customer_name: 'acme', connector_type: kind, redirect_url: REDIRECT_URL });
      expect(response.status, kind).toBe(400);
      const body = (await response.json()) as { errors: { path: string }[] };
      expect(body.errors.map((e) => e.path)).toContain('/connector_type');
    }
  });

  it('validates the body: unknown fields and a bad replication_config are 400s with paths', async () => {
    const response = await initiate({
      customer_name: 'acme',
      connector_type: 'Orb',
      redirect_url: REDIRECT_URL,
      replication_config: { start_date: 'yesterday' },
      extra: true,
    });
    expect(response.status).toBe(400);
    const problem = (await response.json()) as { errors: { path: string }[] };
    expect(problem.errors.map((e) => e.path)).toContain('/extra');
  });

  it.runIf(findConnectorDefinition('Typeform') !== undefined)(
    'runs Typeform with its real provider settings: offline scope, form client auth, refreshing credentials',
    async () => {
      const { consentUrl, callback } = await consent({
        customer_name: 'acme',
        connector_type: 'Typeform',
        redirect_url: REDIRECT_URL,
      });
      expect(consentUrl.searchParams.get('scope')).toContain('offline');
      expect(consentUrl.searchParams.get('code_challenge')).toBeNull();
      const done = await follow(callback.toString());
      expect(done.searchParams.get('connector_id'), done.toString()).toBeTruthy();
      expect(provider.state.tokenRequests.at(-1)).toMatchObject({ clientAuth: 'form', codeVerifier: undefined });
    },
  );
});
