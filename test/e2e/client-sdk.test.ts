import {
  Conduit,
  ConduitProblem,
  type ConnectorClient,
  type ConnectorType,
  type CreateConnectorInput,
} from '@conduit/client';
import { envSuffix, findConnectorDefinition } from '@conduit/connectors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orbSettings } from '../harness/orb-connector.ts';
import { ALL_ENTITIES_AT_ONCE, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { SIMULATORS } from '../simulators/index.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';

/**
 * @conduit/client end to end: the running platform (API + worker, real Postgres, Redis, OpenSearch) with every
 * kind's simulator. For each kind: create a connector, run a live action, and search a replicated entity through
 * `searchAll` (several pages), Google Drive's files included.
 */
const kinds = Object.keys(SIMULATORS) as ConnectorType[];
let platform: TestPlatform;
let conduit: Conduit;
const sims = new Map<string, SimulatorHandle>();
const ids = new Map<string, string>();

/** A connector handle whose kind is only known at run time (the typed surface is covered by the type tests). */
type Loose = ConnectorClient<ConnectorType> & {
  execute(request: { entity: string; action: string; params?: unknown }): Promise<unknown>;
  searchAll(entity: string, params: unknown): AsyncGenerator<Record<string, unknown>>;
  listAll(entity: string, params?: unknown): AsyncGenerator<Record<string, unknown>>;
};
/** Waits for the entity's first complete pass (searches before it return what is there so far). */
async function firstSync(kind: ConnectorType, entity: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const status = (await conduit.connectors.get(ids.get(kind)!)).entities[entity];
    if (status?.status === 'ready') return;
    expect(status?.status, `${kind} ${entity}: ${status?.error}`).not.toBe('failed');
    if (Date.now() > deadline) throw new Error(`${kind} ${entity} did not finish its first sync`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

const loose = (kind: ConnectorType) => conduit.connector(ids.get(kind)!, kind) as unknown as Loose;

beforeAll(async () => {
  const started = await Promise.all(kinds.map(async (kind) => [kind, await SIMULATORS[kind]!({ size: 6 })] as const));
  for (const [kind, sim] of started) sims.set(kind, sim);
  const baseUrls: Record<string, string> = {};
  const tokenUrls: Record<string, string> = {};
  // The simulators enforce no plan's limit: the SDK's calls and the first syncs need not wait on the upstream budget.
  const rateLimits: Record<string, number> = {};
  for (const [kind, sim] of started) {
    baseUrls[envSuffix(kind)] = sim.baseUrl;
    if (sim.tokenUrl) tokenUrls[envSuffix(kind)] = sim.tokenUrl;
    rateLimits[envSuffix(kind)] = 1000;
  }
  platform = await startTestPlatform({ overrides: { baseUrls, tokenUrls, rateLimits }, env: ALL_ENTITIES_AT_ONCE });
  conduit = new Conduit({ baseUrl: platform.url, clientId: platform.clientId, clientSecret: platform.clientSecret });
  for (const [kind, sim] of started) {
    const created = await conduit.connectors.create({
      connector_type: kind,
      customer_name: 'sdk',
      name: kind,
      credentials: sim.credentials,
      replication_config: sim.replicationConfig,
      config: sim.config,
    } as unknown as CreateConnectorInput<typeof kind>);
    expect(created.connector_type).toBe(kind);
    ids.set(kind, created.connector_id);
  }
}, 180_000);

afterAll(async () => {
  await platform?.close();
  await Promise.all([...sims.values()].map((s) => s.close()));
});

describe('@conduit/client against the platform', () => {
  it('lists the caller’s connectors and reads one with its sync status', async () => {
    const all = await conduit.connectors.list();
    expect(all.map((c) => c.connector_type).sort()).toEqual([...kinds].sort());
    const orb = await conduit.connectors.get(ids.get('Orb')!);
    expect(Object.keys(orb.entities)).toEqual(expect.arrayContaining(['customers', 'invoices']));
    expect(JSON.stringify(orb)).not.toContain('orb-test');
  });

  it.each(kinds)('%s: a live action through execute', async (kind) => {
    const sim = sims.get(kind)!;
    const example = sim.examples.find((e) => e.action === 'get') ?? sim.examples[0]!;
    const result = (await loose(kind).execute(example)) as { data: unknown };
    expect(result.data).toBeTruthy();
  });

  it.each(kinds)(
    '%s: searchAll pages through a replicated entity',
    async (kind) => {
      const catalog = findConnectorDefinition(kind)!.catalog;
      const sim = sims.get(kind)!;
      const entity = Object.values(catalog.entities).find(
        (e) => e.sync && e.searchable && new Set(sim.expectedKeys(e.name)).size > 2,
      );
      expect(entity, `${kind} has a replicated searchable entity`).toBeDefined();
      if (!entity) return;
      const client = loose(kind);
      await firstSync(kind, entity.name);
      const expected = [...new Set(sim.expectedKeys(entity.name))].sort();
      // Google Ads rows are keyed by an internal row key that is not searchable: there, the count is compared.
      const keyed = entity.searchable?.[entity.recordKey] !== undefined;
      const found: string[] = [];
      const params = { query: {}, limit: 2, ...(keyed ? { fields: [entity.recordKey] } : {}) };
      for await (const record of client.searchAll(entity.name, params)) found.push(String(record[entity.recordKey]));
      if (keyed) expect(found.sort()).toEqual(expected);
      else expect(found).toHaveLength(expected.length);
    },
    150_000,
  );

  it('types and runs a filtered Orb search, every page', { timeout: 150_000 }, async () => {
    const orb = conduit.connector(ids.get('Orb')!, 'Orb');
    await firstSync('Orb', 'invoices');
    const statuses: string[] = [];
    for await (const invoice of orb.searchAll('invoices', {
      query: { filter: { in: { status: ['paid', 'issued'] } }, sort: [{ created_at: 'desc' }] },
      limit: 1,
      fields: ['id', 'status', 'created_at'],
    })) {
      statuses.push(invoice.status ?? 'missing');
    }
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set(statuses.filter((s) => s === 'paid' || s === 'issued')));
  });

  it('answers typed aggregations (count_by, sum, histogram) with meta.total', async () => {
    const orb = conduit.connector(ids.get('Orb')!, 'Orb');
    await firstSync('Orb', 'invoices');
    const page = await orb.search('invoices', {
      query: {},
      limit: 0,
      aggregate: {
        by_status: { count_by: 'status' },
        revenue: { sum: 'total' },
        daily: { histogram: 'created_at', interval: 'day' },
      },
    });
    const invoices = new Set(sims.get('Orb')!.expectedKeys('invoices')).size;
    expect(page.data).toEqual([]);
    expect(page.meta.total).toEqual({ value: invoices, exact: true });
    const aggregations = page.meta.aggregations!;
    expect(aggregations.by_status.reduce((sum, b) => sum + b.count, 0)).toBe(invoices);
    expect(aggregations.daily.reduce((sum, b) => sum + b.count, 0)).toBe(invoices);
    expect(typeof aggregations.revenue.value).toBe('string');
  });

  it('listAll follows the kind’s own paging to the end', async () => {
    const orb = conduit.connector(ids.get('Orb')!, 'Orb');
    const customers = [];
    for await (const customer of orb.listAll('customers', { limit: 2 })) customers.push(customer.id);
    const expected = (await orb.execute({ entity: 'customers', action: 'list', params: { limit: 100 } })).data;
    expect(customers).toEqual(expected.map((c) => c.id));
    expect(customers.length).toBeGreaterThan(2);
  });

  it('streams a Google Drive download as a web stream', async () => {
    const drive = conduit.connector(ids.get('Google-Drive')!, 'Google-Drive');
    const example = sims.get('Google-Drive')!.examples.find((e) => e.entity === 'files' && e.action === 'download')!;
    const download = await drive.execute({
      entity: 'files',
      action: 'download',
      params: example.params as { fileId: string; alt: 'media' },
    });
    expect(download.body).toBeInstanceOf(ReadableStream);
    let bytes = 0;
    for await (const chunk of download.body) bytes += chunk.byteLength;
    expect(bytes).toBeGreaterThan(0);
    expect(download.contentType).toBeTruthy();
  });

  it('triggers a sync, renames and deletes a connector', async () => {
    const orb = conduit.connector(ids.get('Orb')!, 'Orb');
    await expect(orb.sync({ entity: 'invoices' })).resolves.toEqual({
      connector_id: ids.get('Orb'),
      entities: ['invoices'],
    });
    const sim = sims.get('Orb')!;
    const spare = await conduit.connectors.create({ customer_name: 'sdk', name: 'spare', ...orbSettings(sim) });
    await expect(conduit.connectors.update(spare.connector_id, { name: 'renamed' })).resolves.toMatchObject({
      name: 'renamed',
    });
    await conduit.connectors.delete(spare.connector_id);
    await expect(conduit.connectors.get(spare.connector_id)).rejects.toMatchObject({
      status: 404,
      code: 'connector_not_found',
    });
  });

  it('throws ConduitProblem with the field to fix', async () => {
    const orb = conduit.connector(ids.get('Orb')!, 'Orb');
    const bad = { query: { filter: { eq: { stauts: 'paid' } } } } as unknown as { query: object };
    const error = await orb
      .search('invoices', bad as Parameters<typeof orb.search<'invoices'>>[1])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConduitProblem);
    const problem = error as ConduitProblem;
    expect(problem.status).toBe(400);
    expect(problem.code).toBe('invalid_filter');
    expect(problem.errors[0]?.path).toContain('stauts');
    expect(problem.errors[0]?.message).toContain("Did you mean 'status'?");
    const missing = await conduit.connectors.get('00000000-0000-0000-0000-000000000000').catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, code: 'connector_not_found' });
  });
});
