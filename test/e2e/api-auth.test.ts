import { signingKeysFrom } from '@conduit/config';
import { AccessTokens } from '@conduit/trusted-calls';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnector } from '../harness/create-connector.ts';
import { orbSettings, startOrbPlatform } from '../harness/orb-connector.ts';
import { closeInOrder, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';

async function tokenFor(platform: TestPlatform, clientId: string, secret: string): Promise<string> {
  const response = await fetch(`${platform.url}/api/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

describe('authorization matrix', () => {
  let sim: SimulatorHandle;
  let platform: TestPlatform;
  let connectorId: string;
  const path = () => `/api/v1/integrations/connectors/${connectorId}`;

  beforeAll(async () => {
    ({ sim, platform } = await startOrbPlatform({ size: 5, worker: false }));
    // The kind in lower case: kinds are matched without regard to case.
    connectorId = await createConnector(platform, {
      customer_name: 'acme',
      name: 'auth-matrix',
      ...orbSettings(sim),
      connector_type: 'orb',
    });
  });
  afterAll(() => closeInOrder(platform, sim));

  const get = (headers: Record<string, string>) => fetch(`${platform.url}${path()}`, { headers });
  const addClient = async (clientId: string, secret: string, name: string) => {
    const { hashClientSecret } = await import('@conduit/config');
    await platform.api.deps.clients.upsertClient({
      client_id: clientId,
      secret_hash: await hashClientSecret(secret),
      name,
      allowed_redirect_urls: [],
    });
  };

  it('answers 401 problem+json without a token', async () => {
    const response = await get({});
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(((await response.json()) as { code: string }).code).toBe('unauthorized');
  });

  it('answers 401 for a wrong client secret at the token endpoint', async () => {
    const response = await fetch(`${platform.url}/api/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: platform.clientId,
        client_secret: 'nope-nope',
      }),
    });
    expect(response.status).toBe(401);
  });

  it('answers 401 for an expired token', async () => {
    const key = signingKeysFrom(platform.api.deps.env).accessToken;
    const expired = await new SignJWT({ orgs: [platform.organizationId] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(platform.clientId)
      .setIssuer('conduit')
      .setAudience('conduit-api')
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(key);
    const response = await get({ authorization: `Bearer ${expired}` });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { detail: string }).detail).toContain('expired');
  });

  it('answers 401 for a token signed with the raw TOKEN_SIGNING_KEY (tokens use the derived key)', async () => {
    const raw = await new AccessTokens(platform.api.deps.env.TOKEN_SIGNING_KEY, 600).issue({
      clientId: platform.clientId,
      organizationIds: [platform.organizationId],
      generation: 1,
    });
    expect((await get({ authorization: `Bearer ${raw}` })).status).toBe(401);
  });

  it('answers 401 for a forged signature', async () => {
    const forged = await new AccessTokens('another-signing-key-entirely', 600).issue({
      clientId: platform.clientId,
      organizationIds: [platform.organizationId],
      generation: 1,
    });
    expect((await get({ authorization: `Bearer ${forged}` })).status).toBe(401);
  });

  it('answers 401 for a well-signed token whose client does not exist, or of another generation', async () => {
    const tokens = platform.api.deps.tokens;
    const ghost = await tokens.issue({
      clientId: 'no-such-client',
      organizationIds: [platform.organizationId],
      generation: 1,
    });
    const ghostAnswer = await get({ authorization: `Bearer ${ghost}` });
    expect(ghostAnswer.status).toBe(401);
    expect(((await ghostAnswer.json()) as { detail: string }).detail).toContain('revoked');
    const future = await tokens.issue({
      clientId: platform.clientId,
      organizationIds: [platform.organizationId],
      generation: 2,
    });
    expect((await get({ authorization: `Bearer ${future}` })).status).toBe(401);
  });

  it('answers 403 for a well-signed token naming an organization the client was never granted', async () => {
    const token = await platform.api.deps.tokens.issue({
      clientId: platform.clientId,
      organizationIds: ['org-not-granted'],
      generation: 1,
    });
    const response = await get({ authorization: `Bearer ${token}` });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { code: string }).code).toBe('forbidden');
  });

  it('answers 404, never 403, for a connector of another organization', async () => {
    const { clients } = platform.api.deps;
    await clients.upsertOrganization('other-org', 'other');
    await addClient('other-client', 'other-secret-1', 'o');
    await clients.grant('other-client', 'other-org');
    const token = await tokenFor(platform, 'other-client', 'other-secret-1');
    const response = await get({ authorization: `Bearer ${token}` });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { code: string }).code).toBe('connector_not_found');
  });

  it('requires X-Organization-Id for a client of several organizations, and checks it', async () => {
    const { clients } = platform.api.deps;
    await addClient('multi-client', 'multi-secret-1', 'm');
    await clients.grant('multi-client', platform.organizationId);
    await clients.grant('multi-client', 'other-org');
    const token = await tokenFor(platform, 'multi-client', 'multi-secret-1');
    const without = await get({ authorization: `Bearer ${token}` });
    expect(without.status).toBe(400);
    expect(((await without.json()) as { errors: { path: string }[] }).errors[0]?.path).toBe(
      '/headers/x-organization-id',
    );
    const foreign = await get({ authorization: `Bearer ${token}`, 'x-organization-id': 'not-mine' });
    expect(foreign.status).toBe(403);
    const right = await get({ authorization: `Bearer ${token}`, 'x-organization-id': platform.organizationId });
    expect(right.status).toBe(200);
    const other = await get({ authorization: `Bearer ${token}`, 'x-organization-id': 'other-org' });
    expect(other.status).toBe(404);
  });

  it('puts a request id on every response, errors included', async () => {
    const response = await get({});
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await get({ 'x-request-id': 'trace-123' });
    expect(echoed.headers.get('x-request-id')).toBe('trace-123');
  });

  it('rejects bodies over 1 MiB with 413 problem+json', async () => {
    const response = await platform.call('POST', `${path()}/execute`, {
      entity: 'customers',
      action: 'list',
      params: { cursor: 'x'.repeat(1024 * 1024 + 10) },
    });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { code: string }).code).toBe('payload_too_large');
  });

  it('limits each client per minute with 429 and Retry-After', async () => {
    const limited = await startTestPlatform({
      overrides: { baseUrls: { ORB: sim.baseUrl }, tokenUrls: {} },
      worker: false,
      env: { RATE_LIMIT_PER_MINUTE: '3' },
    });
    try {
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 5; i++) {
        const response = await limited.call('GET', '/api/v1/integrations/connectors/none');
        statuses.push(response.status);
        if (response.status === 429) retryAfter = response.headers.get('retry-after');
      }
      expect(statuses.slice(0, 3)).toEqual([404, 404, 404]);
      expect(statuses.slice(3)).toEqual([429, 429]);
      expect(Number(retryAfter)).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});
