import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import type { OrbRecord } from '../simulators/orb/data.ts';
import { type OrbSimulator, startOrbSimulator } from '../simulators/orb/simulator.ts';

/**
 * Search as a dashboard uses it, through HTTP against the real services and an Orb simulator: amounts compare as
 * money (issue 17 item 11), totals and aggregations equal the simulator's data after start_date (issue 14).
 */
const START_DATE = '2024-01-01T00:00:00Z';

type SearchAnswer = {
  data: Record<string, unknown>[];
  meta: {
    has_more: boolean;
    cursor: string | null;
    total?: { value: number; exact: boolean };
    aggregations?: Record<string, unknown>;
  };
};

describe('search for dashboards, through the API', () => {
  let sim: OrbSimulator;
  let platform: TestPlatform;
  let connectorId: string;
  let invoices: OrbRecord[];

  const search = async (entity: string, params: unknown) => {
    const response = await platform.call('POST', `/api/v1/integrations/connectors/${connectorId}/execute`, {
      entity,
      action: 'search',
      params,
    });
    return { status: response.status, body: (await response.json()) as SearchAnswer & Record<string, unknown> };
  };

  beforeAll(async () => {
    sim = await startOrbSimulator({ customers: 30 });
    const after = (r: OrbRecord) => Date.parse(r.created_at) >= Date.parse(START_DATE);
    // The README's example: as text, "976.08" sorts after "8387.12".
    const [a, b] = sim.data.invoices.filter(after);
    Object.assign(a!, { total: '8387.12', subtotal: '8387.12', status: 'paid' });
    Object.assign(b!, { total: '976.08', subtotal: '976.08', status: 'paid' });
    invoices = sim.data.invoices.filter(after);
    platform = await startTestPlatform({ overrides: { baseUrls: { ORB: sim.url }, tokenUrls: {} } });
    const response = await platform.call('POST', '/api/v1/integrations/connectors', {
      customer_name: 'acme',
      connector_type: 'Orb',
      name: 'billing',
      credentials: { api_key: sim.apiKey },
      replication_config: { start_date: START_DATE },
    });
    expect(response.status).toBe(201);
    connectorId = ((await response.json()) as { connector_id: string }).connector_id;
    await eventually(async () => {
      const view = await platform.call('GET', `/api/v1/integrations/connectors/${connectorId}`);
      const body = (await view.json()) as { entities: Record<string, { status: string }> };
      return ['invoices', 'customers'].every((e) => body.entities[e]?.status === 'ready') ? body : undefined;
    });
  }, 120_000);

  afterAll(async () => {
    await platform?.close();
    await sim?.close();
  });

  it("sorts the README's example by amount: 8387.12 before 976.08, as the upstream's strings", async () => {
    const { status, body } = await search('invoices', {
      query: { filter: { in: { status: ['paid'] } }, sort: [{ total: 'desc' }] },
      limit: 10_000,
      fields: ['id', 'total'],
    });
    expect(status).toBe(200);
    const totals = body.data.map((r) => r.total as string);
    expect(totals.indexOf('8387.12')).toBeLessThan(totals.indexOf('976.08'));
    expect(totals.indexOf('8387.12')).toBeGreaterThanOrEqual(0);
    const expected = invoices
      .filter((r) => r.status === 'paid')
      .map((r) => r.total as string)
      .sort((x, y) => Number(y) - Number(x));
    expect(totals).toEqual(expected);
  });

  it('compares amounts numerically in filters', async () => {
    const { body } = await search('invoices', {
      query: { filter: { gt: { total: '976.08' }, lte: { total: 8387.12 } } },
      limit: 10_000,
      fields: ['id'],
    });
    const expected = invoices.filter((r) => Number(r.total) > 976.08 && Number(r.total) <= 8387.12).map((r) => r.id);
    expect(body.data.map((r) => r.id).sort()).toEqual(expected.sort());
  });
});
