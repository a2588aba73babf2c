import { buildApp } from '@conduit/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { longMemoConnector, SCANNING_LIKE } from '../harness/long-memo-invoices.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/** Each costly search of A takes a few hundred ms on these memos. */
const DOCS = 1500;
const MEMO_CHARS = 12_000;

interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly at: number;
}

/**
 * Engine slots shared between organizations: A floods the search with costly queries, B keeps being served, and
 * A's queue is bounded (429 with Retry-After). Defaults: 2 costly searches at once per API process, 4 waiting per
 * organization.
 */
describe('search engine slots shared fairly between organizations', () => {
  let platform: TestPlatform;
  let connectorA = '';
  let connectorB = '';
  let tokenB = '';
  const started = performance.now();

  const search = async (connectorId: string, token: string, filter: unknown): Promise<Answer> => {
    const response = await fetch(`${platform.url}/api/v1/integrations/connectors/${connectorId}/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ entity: 'invoices', action: 'search', params: { query: { filter }, limit: 5 } }),
    });
    await response.arrayBuffer();
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      at: performance.now() - started,
    };
  };

  beforeAll(async () => {
    // The same costly searches again and again must each take their share of the engine: none is answered from the
    // API's memory.
    platform = await startTestPlatform({
      worker: false,
      env: { RATE_LIMIT_PER_MINUTE: '100000', ANSWER_CACHE: 'off' },
    });
    const { deps } = platform.api;
    // Organization B with a client of its own.
    const { organizationId: orgB, token } = await platform.anotherOrganization();
    tokenB = token;
    connectorA = await longMemoConnector(deps, platform.organizationId, DOCS, MEMO_CHARS);
    connectorB = await longMemoConnector(deps, orgB, 200, 200);
  }, 180_000);
  afterAll(() => platform?.close());

  it("bounds A's queue with 429 + Retry-After, and serves B's cheap and costly searches before A's backlog", async () => {
    const tokenA = await platform.token();
    // Ten at once: two run, four wait, four are refused at once.
    const flood = Array.from({ length: 10 }, () => search(connectorA, tokenA, SCANNING_LIKE));
    const refusals: Answer[] = [];
    for (const answer of flood) {
      void answer.then((a) => a.status === 429 && refusals.push(a));
    }
    // The refusals come back at once, while A's accepted searches are still waiting or running.
    const deadline = Date.now() + 10_000;
    while (refusals.length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(refusals).toHaveLength(4);
    for (const refusal of refusals) expect(Number(refusal.retryAfter)).toBeGreaterThanOrEqual(1);

    // B arrives behind A's backlog: its cheap search does not wait for A, and its costly one is next in line.
    const [cheapB, costlyB] = await Promise.all([
      search(connectorB, tokenB, { eq: { status: 'paid' } }),
      search(connectorB, tokenB, SCANNING_LIKE),
    ]);
    const answersA = await Promise.all(flood);
    const servedA = answersA.filter((a) => a.status === 200).sort((x, y) => x.at - y.at);
    expect(servedA).toHaveLength(6);
    expect(cheapB.status).toBe(200);
    expect(costlyB.status).toBe(200);
    console.log(
      `A answered at ${servedA.map((a) => Math.round(a.at)).join(', ')} ms; B cheap at ${Math.round(cheapB.at)}, B costly at ${Math.round(costlyB.at)} ms`,
    );
    // B's cheap search was answered before A's first costly one came back.
    expect(cheapB.at).toBeLessThan(servedA[0]!.at);
    // B's costly search took the first costly slot that freed: before the last three of A's backlog.
    expect(costlyB.at).toBeLessThan(servedA[3]!.at);
  });

  it("caps one organization's costly searches across API instances, not per instance", async () => {
    const tokenA = await platform.token();
    const second = await platform.secondApi();
    try {
      const secondApp = buildApp(second.deps);
      const body = JSON.stringify({
        entity: 'invoices',
        action: 'search',
        params: { query: { filter: SCANNING_LIKE }, limit: 5 },
      });
      const path = `/api/v1/integrations/connectors/${connectorA}/execute`;
      const headers = { authorization: `Bearer ${tokenA}`, 'content-type': 'application/json' };
      // A cheap search through each instance first, so that the burst below does not begin with the new instance's
      // cold caches (token, client, connector): a costly search answered while the last of the twenty still arrive
      // would free its slot for one more. A costly search takes a few hundred ms; the twenty must all arrive sooner.
      const cheap = JSON.stringify({
        entity: 'invoices',
        action: 'search',
        params: { query: { filter: { eq: { status: 'paid' } } }, limit: 1 },
      });
      expect((await search(connectorA, tokenA, { eq: { status: 'paid' } })).status).toBe(200);
      const warm = await secondApp.request(path, { method: 'POST', headers, body: cheap });
      await warm.arrayBuffer();
      expect(warm.status).toBe(200);
      // Ten to each instance at once: each alone would take six (two running, four waiting).
      const statuses = await Promise.all([
        ...Array.from({ length: 10 }, () => search(connectorA, tokenA, SCANNING_LIKE).then((a) => a.status)),
        ...Array.from({ length: 10 }, async () => {
          const response = await secondApp.request(path, { method: 'POST', headers, body });
          await response.arrayBuffer();
          return response.status;
        }),
      ]);
      const served = statuses.filter((s) => s === 200).length;
      const refused = statuses.filter((s) => s === 429).length;
      expect(served + refused).toBe(20);
      // the 6 costly slots (COSTLY_SEARCHES_PER_ORGANIZATION) for the organization, whichever instance took them.
      expect(served).toBe(6);
    } finally {
      await second.close();
    }
  });
});
