import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { type OrbSimulator, startOrbSimulator } from '../simulators/orb/simulator.ts';

/** Everything a stored credential could leak into: responses, logs, Redis, Postgres plaintext. */
describe('a planted credential never appears outside the upstream call', () => {
  const planted = `orb-planted-${randomBytes(16).toString('hex')}`;
  let sim: OrbSimulator;
  let platform: TestPlatform;
  const responses: string[] = [];

  const record = async (response: Response) => {
    responses.push(`${response.status} ${JSON.stringify([...response.headers])} ${await response.text()}`);
  };

  beforeAll(async () => {
    sim = await startOrbSimulator({ apiKey: planted, customers: 15 });
    platform = await startTestPlatform({ overrides: { baseUrls: { ORB: sim.url }, tokenUrls: {} } });
    const created = await platform.call('POST', '/api/v1/integrations/connectors', {
      customer_name: 'scan',
      connector_type: 'Orb',
      name: 'scan',
      credentials: { api_key: planted },
      replication_config: { start_date: '2024-01-01T00:00:00Z' },
    });
    const text = await created.clone().text();
    await record(created);
    const id = (JSON.parse(text) as { connector_id: string }).connector_id;
    const base = `/api/v1/integrations/connectors/${id}`;
    await eventually(async () => {
      const body = (await (await platform.call('GET', base)).json()) as {
        entities: Record<string, { status: string }>;
      };
      return Object.values(body.entities).every((e) => e.status === 'ready') ? true : undefined;
    });
    await record(await platform.call('GET', base));
    await record(await platform.call('POST', `${base}/execute`, { entity: 'customers', action: 'list', params: {} }));
    await record(
      await platform.call('POST', `${base}/execute`, {
        entity: 'customers',
        action: 'get',
        params: { customer_id: 'missing' },
      }),
    );
    await record(
      await platform.call('POST', `${base}/execute`, { entity: 'customers', action: 'search', params: { query: {} } }),
    );
    await record(
      await platform.call('POST', `${base}/execute`, { entity: 'customers', action: 'list', params: { limit: -1 } }),
    );
    sim.faults.add({ status: 401, count: 10, body: { detail: `bad key ${planted}` } });
    await record(await platform.call('POST', `${base}/execute`, { entity: 'plans', action: 'list', params: {} }));
    sim.faults.clear();
    await record(await platform.call('PATCH', base, { credentials: { api_key: `${planted}-rotated` } }));
    await record(await platform.call('POST', `${base}/sync`, {}));
    await new Promise((r) => setTimeout(r, 500));
  }, 120_000);

  afterAll(async () => {
    await platform?.close();
    await sim?.close();
  });

  it('is in no response body or header', () => {
    expect(responses.length).toBeGreaterThan(5);
    expect(responses.some((r) => r.includes('[REDACTED]'))).toBe(true);
    for (const response of responses) expect(response).not.toContain(planted);
  });

  it('is in no log line', () => {
    expect(platform.logLines.length).toBeGreaterThan(10);
    for (const line of platform.logLines) expect(line).not.toContain(planted);
  });

  it('is in no Redis key or value', async () => {
    const redis = platform.api.deps.redis;
    let cursor = '0';
    let scanned = 0;
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `*${platform.namespace}*`, 'COUNT', '500');
      cursor = next;
      for (const key of keys) {
        scanned++;
        expect(key).not.toContain(planted);
        const type = await redis.type(key);
        const dump =
          type === 'string'
            ? await redis.get(key)
            : type === 'hash'
              ? JSON.stringify(await redis.hgetall(key))
              : type === 'list'
                ? JSON.stringify(await redis.lrange(key, 0, -1))
                : type === 'zset'
                  ? JSON.stringify(await redis.zrange(key, '0', '-1'))
                  : type === 'set'
                    ? JSON.stringify(await redis.smembers(key))
                    : type === 'stream'
                      ? JSON.stringify(await redis.xrange(key, '-', '+'))
                      : '';
        expect(dump ?? '').not.toContain(planted);
      }
    } while (cursor !== '0');
    expect(scanned).toBeGreaterThan(0);
  });

  it('is in no Postgres row in plaintext', async () => {
    const client = new pg.Client({ connectionString: platform.api.deps.env.DATABASE_URL });
    await client.connect();
    try {
      for (const table of ['connectors', 'sync_states', 'api_clients', 'organizations']) {
        const rows = await client.query(`select t::text as row from ${table} t`);
        for (const row of rows.rows as { row: string }[]) expect(row.row).not.toContain(planted);
      }
    } finally {
      await client.end();
    }
  });
});
