import { ConnectorError, type ReadPage, UpstreamError } from '@conduit/connectors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { connectWith } from '../../packages/connectors/src/core/connect.ts';
import { zendeskTalkConnector } from '../../packages/connectors/src/kinds/zendesk-talk/connector.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';
import {
  startZendeskTalk,
  startZendeskTalkSimulator,
  type ZendeskTalkSimulator,
} from '../simulators/zendesk-talk/simulator.ts';

const { catalog } = zendeskTalkConnector;
const FAST_RETRY = { maxAttempts: 6, baseDelayMs: 1, maxDelayMs: 20, maxWaitMs: 5_000 };

type Shape = Record<string, z.ZodType>;
const shapeOf = (schema: unknown): Shape => (schema as { shape: Shape }).shape;

async function collect(entity: string, pages: AsyncIterable<ReadPage>) {
  const key = catalog.entities[entity]!.recordKey;
  const keys: string[] = [];
  const checkpoints: unknown[] = [];
  for await (const page of pages) {
    keys.push(...page.records.map((r) => String(r[key])));
    checkpoints.push(page.checkpoint);
  }
  return { keys, checkpoints };
}

describe('Zendesk Talk in direct mode', () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    // 120 phone numbers (two pages of 100), 1,200 calls and about 2,400 legs (several export pages of 1,000).
    sim = await startZendeskTalk({ size: 120 });
  });
  afterAll(() => sim.close());

  const zendesk = (credentials = sim.credentials) =>
    connectWith(zendeskTalkConnector, credentials, sim.config, {
      baseUrl: sim.baseUrl,
      tokenUrl: sim.tokenUrl,
      retry: FAST_RETRY,
    });

  it('lists an example for every entity × live action of document 2', () => {
    for (const [name, entity] of Object.entries(catalog.entities)) {
      for (const action of Object.keys(entity.actions)) {
        expect(
          sim.examples.some((e) => e.entity === name && e.action === action),
          `${name} ${action}`,
        ).toBe(true);
      }
    }
  });

  it('answers every example call with data, and lists with the Meta of document 2', async () => {
    for (const example of sim.examples) {
      const result = await zendesk().execute(example);
      if (result.type !== 'json') throw new Error('expected json');
      const label = `${example.entity} ${example.action}`;
      if (example.action === 'list') {
        expect((result.body.data as unknown[]).length, label).toBeGreaterThan(0);
        const meta = catalog.entities[example.entity]!.meta ?? {};
        expect(Object.keys(result.body.meta ?? {}).sort(), label).toEqual(Object.keys(meta).sort());
      } else {
        expect(result.body.data, label).toMatchObject({ id: expect.anything() });
      }
    }
  });

  it('hands out the next offset page as a full URL, and null on the last page', async () => {
    const first = await zendesk().execute({ entity: 'phone_numbers', action: 'list' });
    if (first.type !== 'json') throw new Error('expected json');
    expect(first.body.data).toHaveLength(100);
    expect(String(first.body.meta?.next_page)).toMatch(/\/acme\/api\/v2\/channels\/voice\/phone_numbers\?page=2/);
    const ivrs = await zendesk().execute({ entity: 'ivrs', action: 'list' });
    if (ivrs.type !== 'json') throw new Error('expected json');
    expect(ivrs.body.meta).toEqual({ next_page: null });
  });

  it('returns a single-object statistic as one record stamped with current_timestamp', async () => {
    const result = await zendesk().execute({ entity: 'agents_overview', action: 'list' });
    if (result.type !== 'json') throw new Error('expected json');
    const [record] = result.body.data as Record<string, unknown>[];
    expect(Number.isInteger(record?.current_timestamp)).toBe(true);
    expect(Math.abs((record?.current_timestamp as number) - Date.now() / 1000)).toBeLessThan(5);
    expect(typeof record?.total_calls_accepted).toBe('number');
  });

  it('rejects missing and out-of-bound parameters naming them', async () => {
    const cases: { entity: string; action: string; params: Record<string, unknown>; path: string }[] = [];
    for (const example of sim.examples) {
      const schema = catalog.entities[example.entity]!.actions[example.action as 'list'];
      for (const [name, field] of Object.entries(shapeOf(schema))) {
        if (!field.safeParse(undefined).success) {
          const { [name]: _omitted, ...params } = example.params;
          cases.push({ ...example, params, path: `/params/${name}` });
        }
        for (const bad of [0, -1, 1.5, 'x'.repeat(600)]) {
          if (field.safeParse(bad).success) continue;
          if (typeof bad === 'string' && typeof example.params[name] !== 'string') continue;
          if (typeof bad === 'number' && typeof example.params[name] === 'string') continue;
          cases.push({ ...example, params: { ...example.params, [name]: bad }, path: `/params/${name}` });
        }
      }
      cases.push({ ...example, params: { ...example.params, per_pge: 5 }, path: '/params/per_pge' });
    }
    expect(cases.some((c) => c.path === '/params/phone_number_id')).toBe(true);
    expect(cases.some((c) => c.path === '/params/start_time')).toBe(true);
    for (const c of cases) {
      const error = await zendesk()
        .execute(c)
        .catch((e: unknown) => e);
      const label = `${c.entity} ${c.action} ${JSON.stringify(c.params)}`;
      expect(error, label).toBeInstanceOf(ConnectorError);
      expect((error as ConnectorError).code, label).toBe('invalid_params');
      expect(
        (error as ConnectorError).errors.map((p) => p.path),
        label,
      ).toContain(c.path);
    }
  });

  it('answers unknown entities and actions with unsupported_action listing the supported ones', async () => {
    const entity = (await zendesk()
      .execute({ entity: 'phone_number', action: 'list' })
      .catch((e: unknown) => e)) as ConnectorError;
    expect(entity.code).toBe('unsupported_action');
    expect(entity.errors[0]?.message).toContain('phone_numbers');
    const action = (await zendesk()
      .execute({ entity: 'calls', action: 'get', params: {} })
      .catch((e: unknown) => e)) as ConnectorError;
    expect(action.code).toBe('unsupported_action');
    expect(action.errors[0]?.message).toContain('list');
  });

  it('rides out a 429 storm honouring Retry-After', async () => {
    sim.faults.add({ status: 429, count: 3, retryAfterSeconds: 0 });
    const result = await zendesk().execute({ entity: 'addresses', action: 'list' });
    expect(result.type).toBe('json');
  });

  it('maps a rejected API token to upstream_auth_failed without echoing it', async () => {
    const token = String(sim.badCredentials.api_token);
    const error = await zendesk(sim.badCredentials)
      .execute({ entity: 'addresses', action: 'list' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).code).toBe('upstream_auth_failed');
    expect(JSON.stringify(error)).not.toContain(token);
    expect((error as Error).message).not.toContain(token);
  });

  it('redacts a credential the upstream echoes in an error body', async () => {
    const token = String(sim.credentials.api_token);
    sim.faults.add({ status: 400, count: 1, body: { error: 'InvalidValue', description: `bad token ${token}` } });
    const error = await zendesk()
      .execute({ entity: 'addresses', action: 'list' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(JSON.stringify(error)).not.toContain(token);
    expect((error as Error).message).not.toContain(token);
  });

  it('refuses a subdomain that is no valid account name before any call', () => {
    expect(() => connectWith(zendeskTalkConnector, sim.credentials, { subdomain: 'evil.com/x' })).toThrow(
      ConnectorError,
    );
  });

  it('replicates every searchable entity from start_date', async () => {
    const since = String(sim.replicationConfig.start_date);
    for (const [name, entity] of Object.entries(catalog.entities)) {
      if (!entity.sync) continue;
      const { keys } = await collect(name, zendesk().read(name, { since }));
      expect(keys.length, name).toBeGreaterThan(0);
      expect(new Set(keys).size, `${name} has no duplicates`).toBe(keys.length);
      expect(new Set(keys), name).toEqual(new Set(sim.expectedKeys(name)));
    }
  });

  it('resumes the legs export from a mid-run checkpoint without gaps or repeats', async () => {
    // From the beginning: about 2,400 legs, three export pages whose boundary records repeat upstream.
    const since = '2020-01-01T00:00:00Z';
    const full = await collect('call_legs', zendesk().read('call_legs', { since }));
    expect(full.checkpoints.length).toBeGreaterThan(2);
    const iterator = zendesk().read('call_legs', { since })[Symbol.asyncIterator]();
    const first = (await iterator.next()).value as ReadPage;
    const second = (await iterator.next()).value as ReadPage;
    await iterator.return?.();
    const rest = await collect('call_legs', zendesk().read('call_legs', { since, resume: second.checkpoint }));
    const head = [...first.records, ...second.records].map((r) => String(r.id));
    expect([...head, ...rest.keys]).toEqual(full.keys);
    expect(new Set(full.keys).size).toBe(full.keys.length);
  });

  it('resumes an offset-paged list from its checkpoint', async () => {
    const since = String(sim.replicationConfig.start_date);
    const full = await collect('phone_numbers', zendesk().read('phone_numbers', { since }));
    expect(full.checkpoints.length).toBe(2);
    const rest = await collect(
      'phone_numbers',
      zendesk().read('phone_numbers', { since, resume: full.checkpoints[0] }),
    );
    expect(rest.keys).toEqual(full.keys.slice(100));
  });
});

describe('Zendesk Talk OAuth', () => {
  let sim: ZendeskTalkSimulator;
  beforeAll(async () => {
    sim = await startZendeskTalkSimulator({ size: 4 });
  });
  afterAll(() => sim.close());

  it('refreshes an expired access token and hands back the rotated refresh token', async () => {
    sim.expireAccessToken();
    const rotated: Record<string, unknown>[] = [];
    const credentials = {
      access_token: sim.initialAccessToken,
      refresh_token: sim.initialRefreshToken,
      client_id: sim.clientId,
      client_secret: sim.clientSecret,
    };
    const settings = { baseUrl: sim.baseUrl, tokenUrl: sim.tokenUrl, retry: FAST_RETRY };
    const connector = connectWith(
      zendeskTalkConnector,
      credentials,
      { subdomain: sim.subdomain },
      { ...settings, onCredentialsRotated: (c) => void rotated.push(c) },
    );
    const result = await connector.execute({ entity: 'greetings', action: 'list' });
    expect(result.type).toBe('json');
    expect(sim.refreshes).toEqual([sim.initialRefreshToken]);
    expect(rotated).toHaveLength(1);
    expect(rotated[0]!.refresh_token).not.toBe(sim.initialRefreshToken);
    expect(rotated[0]!.client_id).toBe(sim.clientId);

    // The old refresh token was rotated out: a copy still holding it cannot refresh.
    const stale = connectWith(zendeskTalkConnector, credentials, { subdomain: sim.subdomain }, settings);
    const error = await stale.execute({ entity: 'greetings', action: 'list' }).catch((e: unknown) => e);
    expect((error as UpstreamError).code).toBe('upstream_auth_failed');
    for (const secret of [sim.clientSecret, sim.initialRefreshToken, sim.initialAccessToken]) {
      expect(JSON.stringify(error)).not.toContain(secret);
      expect((error as Error).message).not.toContain(secret);
    }

    // The rotated credentials work as a plain bearer token too.
    const bearer = connectWith(
      zendeskTalkConnector,
      { access_token: String(rotated[0]!.access_token) },
      { subdomain: sim.subdomain },
      settings,
    );
    expect((await bearer.execute({ entity: 'addresses', action: 'list' })).type).toBe('json');
  });

  it('stops an incremental export below a full page even though next_page is never null', async () => {
    const small = await startZendeskTalkSimulator({ size: 4, calls: 30, exportPageSize: 1000 });
    try {
      const connector = connectWith(
        zendeskTalkConnector,
        { email: small.email, api_token: small.apiToken },
        { subdomain: small.subdomain },
        { baseUrl: small.baseUrl },
      );
      const pages = await collect('calls', connector.read('calls', { since: '2020-01-01T00:00:00Z' }));
      expect(pages.checkpoints).toEqual([null]);
      expect(pages.keys).toHaveLength(30);
      expect(small.faults.requests.filter((r) => r.path.endsWith('/incremental/calls'))).toHaveLength(1);
    } finally {
      await small.close();
    }
  });
});
