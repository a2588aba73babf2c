import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnector } from '../harness/create-connector.ts';
import { orbSettings, startOrbPlatform } from '../harness/orb-connector.ts';
import { closeInOrder, eventually, type TestPlatform } from '../harness/platform.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';

describe('walking skeleton: an Orb connector from create to search, through HTTP', () => {
  let sim: SimulatorHandle;
  let platform: TestPlatform;
  let connectorId: string;

  beforeAll(async () => {
    ({ sim, platform } = await startOrbPlatform({ size: 60 }));
    connectorId = await createConnector(platform, { customer_name: 'acme', name: 'billing', ...orbSettings(sim) });
  });

  afterAll(() => closeInOrder(platform, sim));

  const execute = (entity: string, action: string, params: unknown) =>
    platform.call('POST', `/api/v1/integrations/connectors/${connectorId}/execute`, { entity, action, params });

  it('never shows the credentials back', async () => {
    const response = await platform.call('GET', `/api/v1/integrations/connectors/${connectorId}`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain(String(sim.credentials.api_key));
    expect(JSON.parse(text)).toMatchObject({ connector_id: connectorId, connector_type: 'Orb', customer_name: 'acme' });
  });

  it('replicates every entity to ready with the simulator’s records after start_date', async () => {
    const entities = ['customers', 'subscriptions', 'plans', 'invoices'];
    const view = await eventually(async () => {
      const response = await platform.call('GET', `/api/v1/integrations/connectors/${connectorId}`);
      const body = (await response.json()) as { entities: Record<string, { status: string; record_count: number }> };
      return entities.every((e) => body.entities[e]?.status === 'ready') ? body : undefined;
    });
    for (const entity of entities) {
      expect(view.entities[entity]?.record_count, entity).toBe(sim.expectedKeys(entity).length);
    }
  });

  it('search returns exactly the simulator’s records after start_date, paged with a cursor', async () => {
    const expected = sim.expectedKeys('customers').sort();
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const response = await execute('customers', 'search', {
        query: { sort: [{ id: 'asc' }] },
        limit: 7,
        ...(cursor ? { cursor } : {}),
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        data: { id: string }[];
        meta: { cursor: string | null; has_more: boolean; took_ms: number };
      };
      expect(typeof body.meta.took_ms).toBe('number');
      seen.push(...body.data.map((r) => r.id));
      cursor = body.meta.has_more ? body.meta.cursor : null;
    } while (cursor);
    expect(seen).toEqual(expected);
  });

  it('search filters with eq and in', async () => {
    const target = sim.expectedKeys('customers')[0]!;
    const eq = await execute('customers', 'search', { query: { filter: { eq: { id: target } } } });
    expect(((await eq.json()) as { data: { id: string }[] }).data.map((r) => r.id)).toEqual([target]);

    const paid = await execute('invoices', 'search', {
      query: { filter: { in: { status: ['paid', 'void'] } } },
      limit: 10000,
    });
    const statuses = ((await paid.json()) as { data: { status: string }[] }).data.map((r) => r.status);
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set(['paid', 'void']));
  });

  it('list and get pass through live and equal the simulator’s answers', async () => {
    const list = await execute('customers', 'list', { limit: 5 });
    expect(list.status).toBe(200);
    const listed = (await list.json()) as { data: { id: string }[]; meta: { next_cursor: string | null } };
    const direct = await fetch(`${sim.baseUrl}/customers?limit=5`, {
      headers: { authorization: `Bearer ${sim.credentials.api_key}` },
    });
    expect(listed.data).toEqual(((await direct.json()) as { data: unknown[] }).data);
    expect(typeof listed.meta.next_cursor).toBe('string');

    const id = listed.data[0]!.id;
    const get = await execute('customers', 'get', { customer_id: id });
    expect(((await get.json()) as { data: { id: string } }).data.id).toBe(id);
  });

  it('a bad request is a problem+json 400 naming the field', async () => {
    const response = await execute('customers', 'list', { limit: 0 });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    const problem = (await response.json()) as { code: string; errors: { path: string }[] };
    expect(problem.code).toBe('invalid_params');
    expect(problem.errors.map((e) => e.path)).toContain('/params/limit');
  });
});
