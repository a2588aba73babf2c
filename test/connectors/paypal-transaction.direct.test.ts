import { ConnectorError, type ReadPage, TokenCache, UpstreamError } from '@conduit/connectors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { connectWith } from '../../packages/connectors/src/core/connect.ts';
import { paypalTransactionConnector } from '../../packages/connectors/src/kinds/paypal-transaction/connector.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';
import {
  type PaypalSimulator,
  startPaypalTransaction,
  startPaypalTransactionSimulator,
} from '../simulators/paypal-transaction/simulator.ts';

const { catalog } = paypalTransactionConnector;
const FAST_RETRY = { maxAttempts: 6, baseDelayMs: 1, maxDelayMs: 20, maxWaitMs: 5_000 };
const DAY = 86_400_000;

type Shape = Record<string, z.ZodType>;
const shapeOf = (schema: unknown): Shape => {
  // transactions' params are an object refined as a whole: its shape sits under the refinement.
  const s = schema as { shape?: Shape; def?: { in?: { shape?: Shape } } };
  return s.shape ?? s.def?.in?.shape ?? {};
};
/** Violations of the numeric and length bounds a field declares. */
const violations = (field: z.ZodType): unknown[] => {
  const inner = ((field as unknown as { unwrap?: () => z.ZodType }).unwrap?.() ?? field) as unknown as {
    minValue?: number | null;
    maxValue?: number | null;
    minLength?: number | null;
    maxLength?: number | null;
  };
  const out: unknown[] = [];
  if (Number.isFinite(inner.minValue)) out.push((inner.minValue as number) - 1);
  if (Number.isFinite(inner.maxValue)) out.push((inner.maxValue as number) + 1);
  if (Number.isFinite(inner.minLength) && (inner.minLength as number) > 1)
    out.push('x'.repeat((inner.minLength as number) - 1));
  if (Number.isFinite(inner.maxLength)) out.push('x'.repeat((inner.maxLength as number) + 1));
  return out;
};

async function collect(entity: string, pages: AsyncIterable<ReadPage>) {
  const path = catalog.entities[entity]!.recordKey.split('.');
  const keyOf = (r: Record<string, unknown>) =>
    String(path.reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], r));
  const keys: string[] = [];
  const checkpoints: unknown[] = [];
  for await (const page of pages) {
    keys.push(...page.records.map(keyOf));
    checkpoints.push(page.checkpoint);
  }
  return { keys, checkpoints };
}

describe('PayPal in direct mode', () => {
  let sim: SimulatorHandle & { faults: PaypalSimulator['faults'] };
  beforeAll(async () => {
    // 300 transactions over ~700 days; a search holding more than 10 answers RESULTSET_TOO_LARGE.
    sim = await startPaypalTransaction({ size: 30, maxResults: 10 });
  });
  afterAll(() => sim.close());

  const paypal = (credentials = sim.credentials, tokenCache?: TokenCache) =>
    connectWith(paypalTransactionConnector, credentials, sim.config, {
      baseUrl: sim.baseUrl,
      tokenUrl: sim.tokenUrl,
      retry: FAST_RETRY,
      ...(tokenCache ? { tokenCache } : {}),
    });
  const json = async (entity: string, action: string, params: Record<string, unknown> = {}) => {
    const result = await paypal().execute({ entity, action, params });
    if (result.type !== 'json') throw new Error('expected json');
    return result.body;
  };

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
      const body = await json(example.entity, example.action, example.params);
      const label = `${example.entity} ${example.action}`;
      if (example.action === 'list') {
        expect((body.data as unknown[]).length, label).toBeGreaterThan(0);
        const meta = catalog.entities[example.entity]!.meta ?? {};
        expect(Object.keys(body.meta ?? {}).sort(), label).toEqual(Object.keys(meta).sort());
      } else {
        expect(body.data, label).toMatchObject({ id: expect.any(String) });
      }
    }
  });

  it('maps transactions with top-level copies and document 2 names', async () => {
    const example = sim.examples.find((e) => e.entity === 'transactions')!;
    const body = await json('transactions', 'list', example.params);
    const [record] = body.data as Record<string, Record<string, unknown>>[];
    expect(record?.transaction_id).toBe(example.params.transaction_id);
    expect(record?.transaction_updated_date).toBe(record?.transaction_info?.transaction_updated_date);
    expect(record?.transaction_info?.provider_account_id).toBe(record?.transaction_info?.paypal_account_id);
    expect(body.meta).toEqual({ total_items: 1, total_pages: 1, page: 1 });
  });

  it('pages list_payments by next_id and list_disputes by next_page_token', async () => {
    const first = await json('list_payments', 'list', { count: 20 });
    expect(first.data).toHaveLength(20);
    const nextId = String(first.meta?.next_id);
    const second = await json('list_payments', 'list', { count: 20, start_id: nextId });
    expect((second.data as { id: string }[])[0]?.id).toBe(nextId);
    const disputes = await json('list_disputes', 'list', { page_size: 5 });
    const token = String(disputes.meta?.next_page_token);
    const more = await json('list_disputes', 'list', { page_size: 5, next_page_token: token });
    expect(more.data).toHaveLength(5);
    const ids = new Set((disputes.data as { dispute_id: string }[]).map((d) => d.dispute_id));
    for (const d of more.data as { dispute_id: string }[]) expect(ids.has(d.dispute_id)).toBe(false);
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
        for (const bad of violations(field)) {
          cases.push({ ...example, params: { ...example.params, [name]: bad }, path: `/params/${name}` });
        }
      }
    }
    const tx = sim.examples.find((e) => e.entity === 'transactions')!;
    const start = Date.parse(String(tx.params.start_date));
    const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
    cases.push(
      { ...tx, params: { ...tx.params, end_date: iso(start + 32 * DAY) }, path: '/params/end_date' },
      { ...tx, params: { ...tx.params, start_date: '2024-01-01T00:00Z' }, path: '/params/start_date' },
      { ...tx, params: { ...tx.params, transaction_status: 'X' }, path: '/params/transaction_status' },
    );
    for (const p of ['start_date', 'end_date', 'transaction_id', 'page_size', 'count', 'id']) {
      expect(
        cases.some((c) => c.path === `/params/${p}`),
        p,
      ).toBe(true);
    }
    for (const c of cases) {
      const error = await paypal()
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
    const entity = (await paypal()
      .execute({ entity: 'payments', action: 'list' })
      .catch((e: unknown) => e)) as ConnectorError;
    expect(entity.code).toBe('unsupported_action');
    expect(entity.errors[0]?.message).toContain('list_payments');
    const action = (await paypal()
      .execute({ entity: 'show_product_details', action: 'list' })
      .catch((e: unknown) => e)) as ConnectorError;
    expect(action.code).toBe('unsupported_action');
    expect(action.errors[0]?.message).toContain('get');
  });

  it('rides out a 429 storm honouring Retry-After', async () => {
    sim.faults.add({ status: 429, count: 3, retryAfterSeconds: 0, pathIncludes: '/catalogs/' });
    const body = await json('list_products', 'list');
    expect((body.data as unknown[]).length).toBeGreaterThan(0);
  });

  it('maps a refused client secret to upstream_auth_failed without echoing it', async () => {
    const secret = String(sim.badCredentials.client_secret);
    const error = await paypal(sim.badCredentials)
      .execute({ entity: 'balances', action: 'list' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).code).toBe('upstream_auth_failed');
    expect(JSON.stringify(error)).not.toContain(secret);
    expect((error as Error).message).not.toContain(secret);
  });

  it('maps a refused access token to upstream_auth_failed without echoing it', async () => {
    const planted = 'A21AA-planted-token-123';
    const error = await paypal({ ...sim.badCredentials, access_token: planted })
      .execute({ entity: 'balances', action: 'list' })
      .catch((e: unknown) => e);
    expect((error as UpstreamError).code).toBe('upstream_auth_failed');
    expect(JSON.stringify(error)).not.toContain(planted);
    expect((error as Error).message).not.toContain(planted);
  });

  it('replicates every searchable entity from start_date (product details per product)', async () => {
    const since = String(sim.replicationConfig.start_date);
    for (const [name, entity] of Object.entries(catalog.entities)) {
      if (!entity.sync) continue;
      const keys: string[] = [];
      const parent = entity.sync.parent;
      if (parent) {
        for await (const page of paypal().read(parent.entity, { since })) {
          for (const record of page.records) {
            const parentParams = { [parent.param]: record[parent.from] };
            keys.push(...(await collect(name, paypal().read(name, { since, parentParams }))).keys);
          }
        }
      } else {
        keys.push(...(await collect(name, paypal().read(name, { since }))).keys);
      }
      expect(keys.length, name).toBeGreaterThan(0);
      expect(new Set(keys), name).toEqual(new Set(sim.expectedKeys(name)));
    }
  });

  it('splits a transaction window that is RESULTSET_TOO_LARGE, and resumes mid-run without gaps', async () => {
    const since = String(sim.replicationConfig.start_date);
    const before = sim.faults.requests.length;
    const full = await collect('transactions', paypal().read('transactions', { since }));
    const searches = sim.faults.requests.slice(before).filter((r) => r.path === '/v1/reporting/transactions');
    // 400 days need 13 windows of 31 days; the too-large ones were split and asked again.
    expect(searches.length).toBeGreaterThan(14);
    expect(new Set(full.keys).size).toBe(full.keys.length);
    const cut = Math.floor(full.checkpoints.length / 2);
    const head: string[] = [];
    let checkpoint: unknown = null;
    let index = 0;
    for await (const page of paypal().read('transactions', { since })) {
      head.push(...page.records.map((r) => String((r.transaction_info as { transaction_id: string }).transaction_id)));
      checkpoint = page.checkpoint;
      if (++index === cut) break;
    }
    const rest = await collect('transactions', paypal().read('transactions', { since, resume: checkpoint }));
    expect([...head, ...rest.keys]).toEqual(full.keys);
  });

  it('resumes list_payments from a mid-run checkpoint', async () => {
    const since = String(sim.replicationConfig.start_date);
    const full = await collect('list_payments', paypal().read('list_payments', { since }));
    expect(full.checkpoints.length).toBeGreaterThan(1);
    const rest = await collect('list_payments', paypal().read('list_payments', { since, resume: full.checkpoints[0] }));
    expect(rest.keys).toEqual(full.keys.slice(20));
  });
});

describe('PayPal client-credentials tokens', () => {
  let sim: PaypalSimulator;
  beforeAll(async () => {
    sim = await startPaypalTransactionSimulator({ size: 3 });
  });
  afterAll(() => sim.close());

  it('caches the token across calls and fetches a new one after a 401', async () => {
    const cache = new TokenCache();
    const connector = () =>
      connectWith(
        paypalTransactionConnector,
        { client_id: sim.clientId, client_secret: sim.clientSecret },
        {},
        { baseUrl: sim.url, tokenUrl: `${sim.url}/v1/oauth2/token`, tokenCache: cache },
      );
    await connector().execute({ entity: 'balances', action: 'list' });
    await connector().execute({ entity: 'list_products', action: 'list' });
    expect(sim.issuedTokens).toHaveLength(1);
    sim.expireTokens();
    const result = await connector().execute({ entity: 'balances', action: 'list' });
    expect(result.type).toBe('json');
    expect(sim.issuedTokens).toHaveLength(2);
  });
});
