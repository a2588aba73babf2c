import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type ApiRuntime, buildApp } from '@conduit/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inheritedEnv } from '../harness/child-env.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../harness/platform.ts';

const ADMIN = fileURLToPath(new URL('../../apps/api/src/cli/admin.ts', import.meta.url));

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI against the test platform's own database (set in beforeAll). */
let databaseUrl = '';

async function admin(...args: string[]): Promise<Run> {
  return adminWith({}, ...args);
}

async function adminWith(env: Record<string, string>, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [ADMIN, ...args],
      { env: { ...inheritedEnv(), DATABASE_URL: databaseUrl, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** `work` on each item, at most `limit` at a time; the results in the items' order. */
async function mapWithConcurrency<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>) {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, limit) }, lane));
  return results;
}

function json<T>(run: Run): T {
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as T;
}

describe('admin CLI: organizations, clients and secrets for a real deployment', () => {
  const suffix = randomBytes(4).toString('hex');
  const org = `cli-org-${suffix}`;
  const org2 = `cli-org2-${suffix}`;
  const clientId = `cli-client-${suffix}`;
  let platform: TestPlatform;

  const tokenFor = (id: string, secret: string) =>
    fetch(`${platform.url}/api/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: id, client_secret: secret }).toString(),
    });

  beforeAll(async () => {
    platform = await startTestPlatform({ worker: false });
    databaseUrl = platform.api.deps.env.DATABASE_URL;
  });

  afterAll(async () => {
    await platform?.close();
  });

  it('creates an organization and a client whose printed secret obtains a bearer token', async () => {
    expect(json(await admin('create-org', org, 'Acme CLI'))).toEqual({ organization_id: org, name: 'Acme CLI' });
    const created = await admin('create-client', clientId, '--org', org, '--redirect-url', 'https://app.example/cb');
    const client = json<{ client_id: string; client_secret: string; organization_ids: string[] }>(created);
    expect(client).toMatchObject({ client_id: clientId, organization_ids: [org] });
    expect(client.client_secret.length).toBeGreaterThanOrEqual(32);
    expect(created.stderr).toContain('not be shown again');

    const response = await tokenFor(clientId, client.client_secret);
    expect(response.status).toBe(200);
    const { access_token } = (await response.json()) as { access_token: string };
    const probe = await fetch(`${platform.url}/api/v1/integrations/connectors/${randomUUID()}`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(probe.status).toBe(404);
    const stored = await platform.api.deps.clients.find(clientId);
    expect(stored?.allowed_redirect_urls).toEqual(['https://app.example/cb']);
    expect(stored?.secret_hash).not.toContain(client.client_secret);
  });

  it('rotate-secret prints a new secret once; the old one stops working', async () => {
    const before = json<{ client_secret: string }>(await admin('rotate-secret', clientId)).client_secret;
    const after = json<{ client_secret: string }>(await admin('rotate-secret', clientId)).client_secret;
    expect(after).not.toBe(before);
    expect((await tokenFor(clientId, before)).status).toBe(401);
    expect((await tokenFor(clientId, after)).status).toBe(200);
  });

  it('grant adds an organization the client can then act for', async () => {
    json(await admin('create-org', org2));
    const granted = json<{ organization_ids: string[] }>(await admin('grant', clientId, org2));
    expect(granted.organization_ids.sort()).toEqual([org, org2].sort());
    const secret = json<{ client_secret: string }>(await admin('rotate-secret', clientId)).client_secret;
    const { access_token } = (await (await tokenFor(clientId, secret)).json()) as { access_token: string };
    const asOrg2 = await fetch(`${platform.url}/api/v1/integrations/connectors/${randomUUID()}`, {
      headers: { authorization: `Bearer ${access_token}`, 'x-organization-id': org2 },
    });
    expect(asOrg2.status).toBe(404);
  });

  it('list-connectors shows ids, kinds, names, customers and dates, never credentials', async () => {
    const { deps } = platform.api;
    const id = randomUUID();
    await deps.connectors.insert({
      id,
      organization_id: org,
      connector_type: 'Orb',
      customer_name: 'acme',
      name: 'billing',
      credentials_ciphertext: deps.cipher.encrypt({ api_key: 'sk_live_do_not_print_me' }),
      config: '{}',
      replication_config: JSON.stringify({ start_date: '2024-01-01T00:00:00Z' }),
    });
    const run = await admin('list-connectors', org);
    const listed = json<Record<string, unknown>[]>(run);
    expect(listed).toEqual([
      {
        connector_id: id,
        connector_type: 'Orb',
        name: 'billing',
        customer_name: 'acme',
        created_at: expect.any(String),
      },
    ]);
    expect(run.stdout).not.toContain('sk_live');
    const row = await deps.connectors.find(org, id);
    expect(run.stdout).not.toContain(row?.credentials_ciphertext.slice(0, 24));
    expect(json<unknown[]>(await admin('list-connectors', org2))).toEqual([]);
  });

  it('reports mistakes on stderr with exit code 2, changing nothing', async () => {
    const orphan = `cli-orphan-${suffix}`;
    const cases: [string[], RegExp][] = [
      [[], /usage/],
      [['no-such-command'], /unknown command/],
      [['create-client', orphan, '--org', `missing-${suffix}`], /unknown organization/],
      [['create-client', orphan], /--org/],
      [['create-client', clientId, '--org', org], /exists/],
      [['create-client', orphan, '--org', org, '--redirect-url', 'not a url'], /redirect-url/],
      [['rotate-secret', `missing-${suffix}`], /unknown client/],
      [['grant', clientId, `missing-${suffix}`], /unknown organization/],
      [['grant', clientId], /missing organization id/],
      [['list-connectors', org, '--org', org], /does not take --org/],
      [['create-org', 'bad id!'], /invalid organization id/],
      [['rotate-secret', clientId, '--bogus'], /bogus/],
      [['revoke-tokens', `missing-${suffix}`], /unknown client/],
      [['delete-client', `missing-${suffix}`], /unknown client/],
      [['delete-client', clientId, 'extra'], /unexpected argument/],
    ];
    // Two per core at a time: fifteen CLI processes started at once on a busy 2-core machine each took long enough
    // to reach the 30 s timeout (killed: exit code 1), and all at once they finish no sooner.
    const runs = await mapWithConcurrency(cases, 2 * availableParallelism(), ([args]) => admin(...args));
    cases.forEach(([args, message], i) => {
      expect(runs[i]?.code, args.join(' ')).toBe(2);
      expect(runs[i]?.stderr, args.join(' ')).toMatch(message);
    });
    expect(await platform.api.deps.clients.find(orphan)).toBeUndefined();
    // Fifteen processes, each a second or more of start-up CPU: more than the default minute on a loaded machine.
  }, 180_000);

  describe('tokens die with their client, on every API instance within 5 s', () => {
    const revocable = `cli-revocable-${suffix}`;
    let second: ApiRuntime;
    let secondApp: ReturnType<typeof buildApp>;
    /** The answer of each instance to a bearer call (a random connector: 404 while the token is good). */
    const statuses = async (token: string) => {
      const path = `/api/v1/integrations/connectors/${randomUUID()}`;
      const headers = { authorization: `Bearer ${token}` };
      const first = await fetch(`${platform.url}${path}`, { headers });
      const other = await secondApp.request(path, { headers });
      return [first.status, other.status];
    };
    const tokenOf = async (secret: string) => {
      const response = await tokenFor(revocable, secret);
      expect(response.status).toBe(200);
      return ((await response.json()) as { access_token: string }).access_token;
    };
    /**
     * Waits until both instances refuse `token`, polling; fails only past 5 s, well beyond the 2 s an instance remembers
     * a client (docs/security.md), so that a loaded machine (the admin process, two instances) cannot fail it.
     */
    const untilRefusedEverywhere = async (token: string) => {
      await eventually(async () => ((await statuses(token)).every((s) => s === 401) ? true : undefined), 5_000, 50);
    };
    /** The platform's own Redis and namespace: the instances hear of the revocation at once. */
    const announced = () => ({ REDIS_URL: platform.api.deps.env.REDIS_URL, NAMESPACE: platform.namespace });

    beforeAll(async () => {
      second = await platform.secondApi();
      secondApp = buildApp(second.deps);
    });
    afterAll(async () => {
      await second?.close();
    });

    it('rotate-secret: the tokens issued before are refused by both instances, even unannounced', async () => {
      const created = json<{ client_secret: string }>(await admin('create-client', revocable, '--org', org));
      const before = await tokenOf(created.client_secret);
      // Both instances have seen the token as good (and remember the client).
      expect(await statuses(before)).toEqual([404, 404]);
      // No REDIS_URL/NAMESPACE of this platform: the instances miss the announcement and find out on their own.
      const secret = json<{ client_secret: string }>(await admin('rotate-secret', revocable)).client_secret;
      await untilRefusedEverywhere(before);
      expect(await statuses(await tokenOf(secret))).toEqual([404, 404]);
    });

    it('revoke-tokens: refused on both instances; the secret still obtains new tokens', async () => {
      const secret = json<{ client_secret: string }>(await admin('rotate-secret', revocable)).client_secret;
      const old = await tokenOf(secret);
      expect(await statuses(old)).toEqual([404, 404]);
      expect(json(await adminWith(announced(), 'revoke-tokens', revocable))).toEqual({
        client_id: revocable,
        tokens_revoked: true,
      });
      await untilRefusedEverywhere(old);
      const response = await fetch(`${platform.url}/api/v1/integrations/connectors/${randomUUID()}`, {
        headers: { authorization: `Bearer ${old}` },
      });
      expect(((await response.json()) as { detail: string }).detail).toContain('revoked');
      expect(await statuses(await tokenOf(secret))).toEqual([404, 404]);
    });

    it('delete-client: its tokens stop creating connectors on both instances, and it gets no new one', async () => {
      const secret = json<{ client_secret: string }>(await admin('rotate-secret', revocable)).client_secret;
      const token = await tokenOf(secret);
      expect(await statuses(token)).toEqual([404, 404]);
      expect(json(await adminWith(announced(), 'delete-client', revocable))).toEqual({
        client_id: revocable,
        deleted: true,
      });
      await untilRefusedEverywhere(token);
      const create = await fetch(`${platform.url}/api/v1/integrations/connectors`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ connector_type: 'Orb', customer_name: 'x', name: 'x', credentials: { api_key: 'k' } }),
      });
      expect(create.status).toBe(401);
      expect((await tokenFor(revocable, secret)).status).toBe(401);
      expect(await platform.api.deps.clients.find(revocable)).toBeUndefined();
    });
  });
});
