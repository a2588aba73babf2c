import { ApiError, Client, Environment, TransactionSearchController } from '@paypal/paypal-server-sdk';
import { describe, expect, it } from 'vitest';
import { simulatorForAll } from '../harness/simulator-for-all.ts';
import { DAY } from '../simulators/paypal-transaction/http.ts';
import { startPaypalTransactionSimulator } from '../simulators/paypal-transaction/simulator.ts';

const SANDBOX = 'https://api-m.sandbox.paypal.com';

/**
 * PayPal's official server SDK (@paypal/paypal-server-sdk) against our PayPal simulator: its client-credentials
 * token at /v1/oauth2/token, then the Transaction Search API (transactions with page/total_pages, balances) and
 * the errors it raises as ApiError. The SDK only knows PayPal's hosts, so its HTTP client (axios, fetch adapter)
 * is given a fetch that sends the sandbox host's requests to the simulator instead; nothing else is changed.
 */
describe('@paypal/paypal-server-sdk (official client) against the PayPal simulator', () => {
  const sim = simulatorForAll(() => startPaypalTransactionSimulator({ size: 40 }));
  const clientFor = (secret: string) =>
    new Client({
      environment: Environment.Sandbox,
      clientCredentialsAuthCredentials: { oAuthClientId: sim.clientId, oAuthClientSecret: secret },
      timeout: 10_000,
      unstable_httpClientOptions: {
        adapter: 'fetch',
        env: {
          fetch: (input: Request | URL | string, init?: RequestInit) => {
            const url = input instanceof Request ? input.url : String(input);
            const target = url.startsWith(SANDBOX) ? sim.url + url.slice(SANDBOX.length) : url;
            return input instanceof Request ? fetch(new Request(target, input), init) : fetch(target, init);
          },
        },
      },
    });

  const windowOf = () => {
    const end = sim.data.anchor - DAY;
    const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
    return { startDate: iso(end - 30 * DAY), endDate: iso(end) };
  };

  it('gets a token with the client credentials and pages a 31-day transaction search', async () => {
    const search = new TransactionSearchController(clientFor(sim.clientSecret));
    const window = windowOf();
    const first = await search.searchTransactions({ ...window, pageSize: 3, page: 1, fields: 'all' });
    const total = first.result.totalPages ?? 1;
    const ids = (first.result.transactionDetails ?? []).map((t) => t.transactionInfo?.transactionId);
    for (let page = 2; page <= total; page++) {
      const next = await search.searchTransactions({ ...window, pageSize: 3, page, fields: 'all' });
      ids.push(...(next.result.transactionDetails ?? []).map((t) => t.transactionInfo?.transactionId));
    }
    const from = Date.parse(window.startDate);
    const to = Date.parse(window.endDate);
    const expected = sim.data.transactions.filter((t) => {
      const at = Date.parse(t.transaction_info.transaction_updated_date);
      return t.balance_affecting && at >= from && at <= to;
    });
    expect(total).toBeGreaterThan(1);
    expect(ids.sort()).toEqual(expected.map((t) => t.transaction_info.transaction_id).sort());
    expect(sim.issuedTokens).toHaveLength(1);
  });

  it('lists balances', async () => {
    const search = new TransactionSearchController(clientFor(sim.clientSecret));
    const balances = await search.searchBalances({ currencyCode: 'USD' });
    expect(balances.statusCode).toBe(200);
    expect(balances.result.accountId).toBe(sim.data.accountId);
  });

  it('answers a window over 31 days with the 400 the SDK raises as ApiError', async () => {
    const search = new TransactionSearchController(clientFor(sim.clientSecret));
    const end = new Date(sim.data.anchor).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const start = new Date(sim.data.anchor - 40 * DAY).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const error = await search.searchTransactions({ startDate: start, endDate: end }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).statusCode).toBe(400);
  });

  it('refuses a wrong client secret at the token endpoint (401)', async () => {
    const search = new TransactionSearchController(clientFor('pp-secret-WRONG1'));
    const error = await search.searchBalances({}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(JSON.stringify(error)).toMatch(/401|invalid_client/);
  });
});
