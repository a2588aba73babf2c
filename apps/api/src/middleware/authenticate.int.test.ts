import { randomUUID } from 'node:crypto';
import { readEnv } from '@conduit/config';
import { ClientsRepository, createDatabase, ensureDatabaseExists, migrateToLatest } from '@conduit/db';
import { createLogger } from '@conduit/observability';
import { AccessTokens } from '@conduit/trusted-calls';
import { Hono } from 'hono';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropDatabase, withDatabaseName } from '../../../../test/harness/databases.ts';
import type { ApiEnv } from '../deps.ts';
import { problemResponse } from '../problem.ts';
import { ClientAccessCache } from '../services/client-access.ts';
import { authenticate } from './authenticate.ts';

const env = readEnv();
const databaseUrl = withDatabaseName(env.DATABASE_URL, `conduit_auth_${randomUUID().replaceAll('-', '').slice(0, 12)}`);
const db = createDatabase(databaseUrl, 2);
const clients = new ClientsRepository(db);
const redis = new Redis(env.REDIS_URL);
const tokens = new AccessTokens('a-test-signing-key-of-at-least-32-bytes', 900);
let access: ClientAccessCache;

/** What the routes behind the middleware saw: the caller it established, per request that got through. */
const seen: { clientId: string; organizationId: string }[] = [];
function app() {
  return new Hono<ApiEnv>()
    .onError((error, c) => problemResponse(c, error))
    .use('*', async (c, next) => {
      c.set('logger', createLogger({ write: () => {} }));
      await next();
    })
    .use('*', authenticate(tokens, access))
    .get('/', (c) => {
      seen.push(c.get('auth'));
      return c.json(c.get('auth'));
    });
}

async function client(id: string, organizations: string[]): Promise<string> {
  await clients.upsertClient({ client_id: id, secret_hash: 'x', name: id, allowed_redirect_urls: [] });
  for (const organization of organizations) await clients.grant(id, organization);
  const current = await clients.access(id);
  return tokens.issue({ clientId: id, organizationIds: organizations, generation: current!.token_generation });
}

beforeAll(async () => {
  await ensureDatabaseExists(databaseUrl);
  await migrateToLatest(db);
  for (const organization of ['org-a', 'org-b', 'org-c']) await clients.upsertOrganization(organization, organization);
  access = await ClientAccessCache.start(clients, redis, {
    namespace: `auth-test-${randomUUID()}`,
    logger: createLogger({ write: () => {} }),
    ttlMs: 0,
  });
});

afterAll(async () => {
  await access?.close();
  await redis.quit();
  await db.destroy();
  await dropDatabase(databaseUrl);
});

const get = (headers: Record<string, string>) => app().request('/', { headers });

describe('authenticate', () => {
  it('lets a valid token of a one-organization client through, acting for that organization', async () => {
    const token = await client('one-org', ['org-a']);
    const response = await get({ authorization: `Bearer ${token}` });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ clientId: 'one-org', organizationId: 'org-a' });
  });

  it('answers 401 unauthorized without a token, for a forged one and for a malformed header, and lets none through', async () => {
    const before = seen.length;
    const forged = `${(await client('forger', ['org-a'])).slice(0, -4)}AAAA`;
    const cases: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${forged}` },
      { authorization: 'Basic dXNlcjpwYXNz' },
    ];
    for (const headers of cases) {
      const response = await get(headers);
      expect(response.status, JSON.stringify(headers)).toBe(401);
      expect(await response.json()).toMatchObject({ code: 'unauthorized' });
    }
    expect(seen.length).toBe(before);
  });

  it('needs X-Organization-Id from a client of several organizations, and refuses one it does not belong to', async () => {
    const token = await client('two-orgs', ['org-a', 'org-b']);
    const bearer = { authorization: `Bearer ${token}` };
    const unnamed = await get(bearer);
    expect(unnamed.status).toBe(400);
    expect(await unnamed.json()).toMatchObject({
      code: 'invalid_request',
      errors: [{ path: '/headers/x-organization-id' }],
    });
    const foreign = await get({ ...bearer, 'x-organization-id': 'org-c' });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ code: 'forbidden' });
    const named = await get({ ...bearer, 'x-organization-id': 'org-b' });
    expect(await named.json()).toEqual({ clientId: 'two-orgs', organizationId: 'org-b' });
  });

  it('refuses a token once its client’s tokens are revoked (401) and once its organization is no longer granted (403)', async () => {
    const token = await client('revoked', ['org-a']);
    expect((await get({ authorization: `Bearer ${token}` })).status).toBe(200);
    await clients.revokeTokens('revoked');
    const revoked = await get({ authorization: `Bearer ${token}` });
    expect(revoked.status).toBe(401);
    expect(await revoked.json()).toMatchObject({ code: 'unauthorized', detail: 'the access token has been revoked' });

    const ungranted = await client('ungranted', ['org-a', 'org-b']);
    await db
      .deleteFrom('client_organizations')
      .where('client_id', '=', 'ungranted')
      .where('organization_id', '=', 'org-b')
      .execute();
    const response = await get({ authorization: `Bearer ${ungranted}`, 'x-organization-id': 'org-b' });
    expect(response.status).toBe(403);
    // Only the call made before the revocation reached a route.
    expect(seen.filter((s) => s.clientId === 'revoked')).toHaveLength(1);
    expect(seen.filter((s) => s.clientId === 'ungranted')).toHaveLength(0);
  });
});
