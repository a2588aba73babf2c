import { buildApp } from '@conduit/api';
import { entityOf, findConnectorDefinition } from '@conduit/connectors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnector } from '../harness/create-connector.ts';
import { orbSettingsFrom } from '../harness/orb-connector.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import type { OrbRecord } from '../simulators/orb/data.ts';
import { type OrbSimulator, startOrbSimulator } from '../simulators/orb/simulator.ts';

/**
 * Search as a dashboard uses it, through HTTP against the real services and an Orb simulator: amounts compare as
 * money, totals and aggregations equal the simulator's data after start_date.
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
    // An invoice dated long before the others: an hourly histogram over all of them has too many buckets.
    Object.assign(sim.data.invoices.filter(after)[2]!, { invoice_date: '2010-01-01T00:00:00+00:00' });
    invoices = sim.data.invoices.filter(after);
    platform = await startTestPlatform({ overrides: { baseUrls: { ORB: sim.url }, tokenUrls: {} } });
    connectorId = await createConnector(platform, {
      customer_name: 'acme',
      name: 'billing',
      ...orbSettingsFrom(sim.apiKey, START_DATE),
    });
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

  it('counts, sums and buckets exactly what the simulator holds after start_date', async () => {
    const { status, body } = await search('invoices', {
      query: { filter: { neq: { status: 'void' } } },
      aggregate: {
        by_status: { count_by: 'status' },
        revenue: { sum: 'total' },
        largest: { max: 'total' },
        monthly: { histogram: 'invoice_date', interval: 'month' },
      },
      limit: 0,
    });
    expect(status).toBe(200);
    expect(body.data).toEqual([]);
    const kept = invoices.filter((r) => r.status !== 'void');
    expect(body.meta.total).toEqual({ value: kept.length, exact: true });

    const counts = new Map<string, number>();
    for (const r of kept) counts.set(String(r.status), (counts.get(String(r.status)) ?? 0) + 1);
    const byStatus = [...counts]
      .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
      .map(([key, count]) => ({ key, count }));

    // Exact decimal sum in cents (every simulated amount has two decimals).
    const cents = kept.reduce((sum, r) => sum + BigInt(String(r.total).replace('.', '')), 0n);
    const revenue = `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`.replace(/\.?0+$/, '');
    const largest = kept.map((r) => String(r.total)).sort((a, b) => Number(b) - Number(a))[0];

    const months = new Map<string, number>();
    for (const r of kept) {
      const key = `${String(r.invoice_date).slice(0, 7)}-01T00:00:00.000Z`;
      months.set(key, (months.get(key) ?? 0) + 1);
    }
    const first = [...months.keys()].sort()[0]!;
    const last = [...months.keys()].sort().at(-1)!;
    const monthly: { key: string; count: number }[] = [];
    for (const at = new Date(first); at.toISOString() <= last; at.setUTCMonth(at.getUTCMonth() + 1)) {
      monthly.push({ key: at.toISOString(), count: months.get(at.toISOString()) ?? 0 });
    }

    expect(body.meta.aggregations).toEqual({
      by_status: byStatus,
      revenue: { value: revenue },
      largest: { value: largest },
      monthly,
    });
  });

  it('answers every record as the upstream holds it, with exactly its searchable fields, as application/json', async () => {
    const searchable = Object.keys(entityOf(findConnectorDefinition('Orb')!.catalog, 'invoices')?.searchable ?? {});
    const ids = invoices.slice(0, 20).map((invoice) => invoice.id);
    const response = await platform.call('POST', `/api/v1/integrations/connectors/${connectorId}/execute`, {
      entity: 'invoices',
      action: 'search',
      params: { query: { filter: { in: { id: ids } } }, limit: 50 },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = (await response.json()) as SearchAnswer;
    // The records are copied from the engine's bytes (searchPageJson): the same values, none more, none fewer.
    const expected = invoices
      .filter((invoice) => ids.includes(invoice.id))
      .map((invoice) => Object.fromEntries(searchable.filter((f) => f in invoice).map((f) => [f, invoice[f]])));
    expect(body.data).toEqual(expect.arrayContaining(expected));
    expect(body.data).toHaveLength(expected.length);
  });

  it('gives meta.total with every page', async () => {
    const { body } = await search('customers', { query: {}, limit: 3 });
    expect(body.data).toHaveLength(3);
    expect(body.meta.total).toEqual({
      value: sim.data.customers.filter((r) => Date.parse(r.created_at) >= Date.parse(START_DATE)).length,
      exact: true,
    });
  });

  it('answers searches that share one request to the engine each with its own page (a 400 stays with its search)', async () => {
    // A second API instance keeping one request open to the engine: the searches that arrive while it is out wait
    // and leave together as one _msearch.
    const oneRequest = await platform.secondApi({ OPENSEARCH_SEARCH_REQUESTS: 1 });
    try {
      const app = buildApp(oneRequest.deps);
      const token = await platform.token();
      const searchAtOnce = (params: unknown) =>
        app.request(`/api/v1/integrations/connectors/${connectorId}/execute`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ entity: 'invoices', action: 'search', params }),
        });
      const searches = [
        ...['paid', 'issued', 'void', 'draft'].map((status) => ({
          query: { filter: { eq: { status } } },
          limit: 1000,
          fields: ['id', 'status'],
        })),
        { query: {}, aggregate: { h: { histogram: 'invoice_date', interval: 'hour' } }, limit: 0 },
        { query: { filter: { neq: { status: 'void' } } }, aggregate: { revenue: { sum: 'total' } }, limit: 0 },
        { query: { sort: [{ total: 'desc' }] }, limit: 5, fields: ['id', 'total'] },
      ];
      // took_ms is the engine's timing of each run, so it is the one field that may differ.
      const comparable = (status: number, body: SearchAnswer) => ({
        status,
        body: { ...body, meta: body.meta && { ...body.meta, took_ms: null } },
      });
      const together = await Promise.all(
        searches.map(async (params) => {
          const response = await searchAtOnce(params);
          return comparable(response.status, (await response.json()) as SearchAnswer);
        }),
      );
      for (const [i, params] of searches.entries()) {
        const alone = await search('invoices', params);
        expect(together[i]).toEqual(comparable(alone.status, alone.body));
      }
      expect(together.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 400, 200, 200]);
      const paid = invoices.filter((r) => r.status === 'paid').map((r) => r.id);
      expect(together[0]!.body.data.map((r) => r.id).sort()).toEqual(paid.sort());
    } finally {
      await oneRequest.close();
    }
  });

  const problem = async (params: unknown) => {
    const { status, body } = await search('invoices', params);
    expect(status).toBe(400);
    return body as unknown as { code: string; detail: string; errors: { path: string; message: string }[] };
  };

  it('answers bad aggregations with 400s pointing into the request body', async () => {
    const typo = await problem({ query: {}, aggregate: { revenue: { sum: 'totl' } } });
    expect(typo.code).toBe('invalid_filter');
    expect(typo.errors).toEqual([
      { path: '/params/aggregate/revenue/sum', message: expect.stringContaining("Did you mean 'total'?") },
    ]);
    const text = await problem({ query: {}, aggregate: { s: { sum: 'memo' } } });
    expect(text.errors).toEqual([
      {
        path: '/params/aggregate/s/sum',
        message: "sum does not apply to 'memo' (string); it takes fields of type integer, number, decimal",
      },
    ]);
    const shape = await problem({ query: {}, aggregate: { h: { histogram: 'invoice_date', interval: 'year' } } });
    expect(shape.errors.map((e) => e.path)).toEqual(['/params/aggregate/h/interval']);
    const buckets = await problem({ query: {}, aggregate: { h: { histogram: 'invoice_date', interval: 'hour' } } });
    expect(buckets).toMatchObject({
      code: 'invalid_filter',
      errors: [{ path: '/params/aggregate/h', message: expect.stringContaining('more than 65535 buckets') }],
    });
  });

  it('points filter problems at /params/query and names limit, cursor and fields problems invalid_params', async () => {
    const filter = await problem({ query: { filter: { eq: { stauts: 'paid' } } } });
    expect(filter.code).toBe('invalid_filter');
    expect(filter.errors[0]).toMatchObject({ path: '/params/query/filter/eq/stauts' });
    expect(filter.detail).toContain('/params/query/filter/eq/stauts');

    const limit = await problem({ query: {}, limit: 10_001 });
    expect(limit).toMatchObject({ code: 'invalid_params', errors: [{ path: '/params/limit' }] });
    const fields = await problem({ query: {}, fields: ['totl'] });
    expect(fields).toMatchObject({ code: 'invalid_params', errors: [{ path: '/params/fields/0' }] });
    const cursor = await problem({ query: {}, cursor: 5 });
    expect(cursor).toMatchObject({
      code: 'invalid_params',
      errors: [{ path: '/params/cursor', message: 'expected a string, got a number' }],
    });
    const forged = await problem({ query: {}, cursor: 'abc.def' });
    expect(forged).toMatchObject({ code: 'invalid_cursor', errors: [{ path: '/params/cursor' }] });
  });
});
