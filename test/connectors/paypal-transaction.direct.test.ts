import { TokenCache } from '@conduit/connectors';
import { describe, expect, it } from 'vitest';
import { connectWith } from '../../packages/connectors/src/core/connect.ts';
import { paypalTransactionConnector } from '../../packages/connectors/src/kinds/paypal-transaction/connector.ts';
import { simulatorForAll } from '../harness/simulator-for-all.ts';
import { startPaypalTransaction, startPaypalTransactionSimulator } from '../simulators/paypal-transaction/simulator.ts';
import { describeConnectorConformance, FAST_RETRY } from './conformance.ts';
import { collectPages, expectInvalid, keyOf } from './conformance-kit.ts';
import { echoedCredentials, missingAction, misspeltEntity, retryAfterStorm } from './conformance-presets.ts';

const { catalog } = paypalTransactionConnector;
const DAY = 86_400_000;
const balances = { entity: 'balances', action: 'list', params: {} };
const planted = 'A21AA-planted-token-123';

describeConnectorConformance({
  name: 'PayPal in direct mode',
  definition: paypalTransactionConnector,
  // 300 transactions over ~700 days; a search holding more than 10 answers RESULTSET_TOO_LARGE.
  start: () => startPaypalTransaction({ size: 30, maxResults: 10 }),
  settings: { retry: FAST_RETRY },
  derivedCovers: ['start_date', 'end_date', 'transaction_id', 'page_size', 'count', 'id'],
  unsupported: [misspeltEntity('payments', 'list_payments'), missingAction('show_product_details', 'list', 'get')],
  storms: [retryAfterStorm({ entity: 'list_products', action: 'list', params: {} }, '/catalogs/')],
  auth: {
    request: balances,
    // A refused client secret, and a refused access token planted next to it.
    credentials: (sim) => [sim.badCredentials, { ...sim.badCredentials, access_token: planted }],
    secrets: (sim) => [String(sim.badCredentials.client_secret), planted],
  },
  echo: echoedCredentials({ entity: 'list_products', action: 'list', params: {} }, ['client_secret'], (planted) => ({
    status: 400,
    pathIncludes: '/catalogs/',
    body: { name: 'INVALID_REQUEST', message: `bad request for ${planted}` },
  })),
  replication: {},
  resume: [
    // Windows that are RESULTSET_TOO_LARGE are split; the cut falls mid-run among them.
    { entity: 'transactions', minPages: 3 },
    { entity: 'list_payments', pageSize: 20 },
  ],
  specific: (h) => {
    const json = (entity: string, action: string, params: Record<string, unknown> = {}) =>
      h.json(entity, action, params);
    const sim = () => h.sim();
    const paypal = () => h.connector();

    it("maps transactions with top-level copies and the specification's names", async () => {
      const example = sim().examples.find((e) => e.entity === 'transactions')!;
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

    it('rejects transaction windows over 31 days, malformed dates and unknown statuses, naming them', async () => {
      const tx = sim().examples.find((e) => e.entity === 'transactions')!;
      const start = Date.parse(String(tx.params.start_date));
      const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
      for (const c of [
        { ...tx, params: { ...tx.params, end_date: iso(start + 32 * DAY) }, path: '/params/end_date' },
        { ...tx, params: { ...tx.params, start_date: '2024-01-01T00:00Z' }, path: '/params/start_date' },
        { ...tx, params: { ...tx.params, transaction_status: 'X' }, path: '/params/transaction_status' },
      ])
        await expectInvalid((x) => paypal().execute(x), c);
    });

    it('splits a transaction window that is RESULTSET_TOO_LARGE, without repeats', async () => {
      const since = String(sim().replicationConfig.start_date);
      const before = sim().faults.requests.length;
      const full = (
        await collectPages(paypal().read('transactions', { since }), keyOf(catalog, 'transactions'))
      ).flatMap((p) => p.keys);
      const searches = sim()
        .faults.requests.slice(before)
        .filter((r) => r.path === '/v1/reporting/transactions');
      // 400 days need 13 windows of 31 days; the too-large ones were split and asked again.
      expect(searches.length).toBeGreaterThan(14);
      expect(new Set(full).size).toBe(full.length);
    });
  },
});

describe('PayPal client-credentials tokens', () => {
  const sim = simulatorForAll(() => startPaypalTransactionSimulator({ size: 3 }));

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
