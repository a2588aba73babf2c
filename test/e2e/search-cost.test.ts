import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { engineClient } from '../harness/engine-client.ts';
import { longMemoConnector, SCANNING_LIKE } from '../harness/long-memo-invoices.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../harness/platform.ts';

const DOCS = 3000;
const MEMO_CHARS = 12_000;
const SCAN = SCANNING_LIKE;
const FUZZY = {
  fuzzy: {
    memo: Array.from({ length: 25 }, (_, i) => 'abcdefghijklmnopqrstuvwxy'.slice(i % 20, (i % 20) + 5)).join(' '),
  },
};

describe('search cost: a budget before the engine, and the engine bounded after it', () => {
  let platform: TestPlatform;
  let connectorId = '';
  const search = (filter: unknown, init: RequestInit = {}, headers: Record<string, string> = {}) =>
    fetch(`${platform.url}/api/v1/integrations/connectors/${connectorId}/execute`, {
      method: 'POST',
      ...init,
      headers: { 'content-type': 'application/json', ...headers, ...(init.headers as Record<string, string>) },
      body: JSON.stringify({ entity: 'invoices', action: 'search', params: { query: { filter }, limit: 5 } }),
    });
  /** The engine's search tasks started for the API request `requestId` (it goes as X-Opaque-Id). */
  const engineTasks = async (requestId: string) => {
    const engine = engineClient(platform.api.deps.env);
    const { body } = await engine.tasks.list({ actions: '*search*', detailed: true }).finally(() => engine.close());
    const nodes = (
      body as {
        nodes?: Record<string, { tasks: Record<string, { headers?: Record<string, string>; cancelled?: boolean }> }>;
      }
    ).nodes;
    return Object.values(nodes ?? {}).flatMap((node) =>
      Object.values(node.tasks).filter((task) => task.headers?.['X-Opaque-Id'] === requestId),
    );
  };

  beforeAll(async () => {
    // Every search here must reach the engine (its cost and cancellation are what is tested): none is answered from
    // the API's memory.
    platform = await startTestPlatform({
      worker: false,
      env: { RATE_LIMIT_PER_MINUTE: '100000', ANSWER_CACHE: 'off' },
    });
    connectorId = await longMemoConnector(platform.api.deps, platform.organizationId, DOCS, MEMO_CHARS);
    authorization = `Bearer ${await platform.token()}`;
  }, 180_000);
  afterAll(() => platform?.close());
  let authorization = '';

  it('refuses an or of 200 like patterns of 256 characters with 400 query_too_costly, naming the parts and the limit', async () => {
    const patterns = Array.from({ length: 200 }, (_, i) => ({ like: { memo: `${i}`.padEnd(256, 'k') } }));
    const answer = await search({ or: patterns }, { headers: { authorization } });
    expect(answer.status).toBe(400);
    const problem = (await answer.json()) as {
      code: string;
      detail: string;
      errors: { path: string; message: string }[];
    };
    expect(problem.code).toBe('query_too_costly');
    expect(problem.errors[0]).toEqual({
      path: '/params/query/filter/or/0/like/memo',
      message: 'the search costs 2000 units, over the budget of 100; this part costs 10 (256 literal characters)',
    });
    expect(problem.detail).toContain('docs/search-cost.md');
  });

  it('refuses a like with too many wildcards, naming it and the limit', async () => {
    const answer = await search(
      { and: [{ eq: { status: 'paid' } }, { like: { memo: '%a'.repeat(20) } }] },
      {
        headers: { authorization },
      },
    );
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({
      code: 'query_too_costly',
      errors: [
        {
          path: '/params/query/filter/and/1/like/memo',
          message: 'a like pattern has at most 16 wildcards (% and _); this one has 20',
        },
      ],
    });
  });

  it('answers the costliest search the budget allows', async () => {
    for (const filter of [SCAN, FUZZY]) {
      const started = performance.now();
      const answer = await search(filter, { headers: { authorization } });
      expect(answer.status, await answer.clone().text()).toBe(200);
      console.log(`${JSON.stringify(filter).slice(0, 40)}: ${Math.round(performance.now() - started)} ms`);
    }
  });

  it('cancels the engine task of a search whose caller went away', async () => {
    // How long the same search runs to its end, on this machine now.
    const fullStarted = performance.now();
    expect((await search(SCAN, { headers: { authorization } })).status).toBe(200);
    const fullMs = performance.now() - fullStarted;

    const requestId = `abandoned-${randomUUID()}`;
    const caller = new AbortController();
    const abandoned = search(
      SCAN,
      { signal: caller.signal, headers: { authorization } },
      { 'x-request-id': requestId },
    );
    abandoned.catch(() => undefined);
    // The engine is working on it, named by the request id (X-Opaque-Id).
    await eventually(async () => ((await engineTasks(requestId)).length > 0 ? true : undefined), 10_000, 10);
    const seenAt = performance.now();
    caller.abort();
    // The engine marks the task cancelled (its connection closed), then it ends at its next cancellation check.
    let sawCancelled = false;
    await eventually(
      async () => {
        const tasks = await engineTasks(requestId);
        if (tasks.some((task) => task.cancelled === true)) sawCancelled = true;
        return tasks.length === 0 ? true : undefined;
      },
      2_000,
      10,
    );
    const goneMs = performance.now() - seenAt;
    console.log(`full run ${Math.round(fullMs)} ms; abandoned: task gone ${Math.round(goneMs)} ms after the abort`);
    // Either the engine was seen marking it cancelled, or it ended far sooner than a search left to run would.
    expect(sawCancelled || goneMs < fullMs / 2, `cancelled ${sawCancelled}, gone after ${goneMs} ms`).toBe(true);
  });

  it('never sends a search whose caller went away while it waited for a costly slot', async () => {
    const { indexes } = platform.api.deps;
    const engine = engineClient(platform.api.deps.env);
    onTestFinished(() => engine.close());
    /** Queries the engine ran on this test's index so far (one shard: one per search). */
    const queriesRun = async () => {
      const { body } = await engine.indices.stats({
        index: indexes.alias('Orb', 'invoices'),
        metric: 'search',
      });
      return (body as { _all: { primaries: { search: { query_total: number } } } })._all.primaries.search.query_total;
    };
    const before = await queriesRun();
    // Two costly searches take the process's two costly slots; the third waits in the API.
    const running = [0, 1].map(() => search(SCAN, { headers: { authorization } }));
    const caller = new AbortController();
    const queued = search(SCAN, { signal: caller.signal, headers: { authorization } });
    queued.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 30));
    caller.abort();
    // The slots free up, and the abandoned search is not sent in their wake: the engine ran the two, and one more.
    for (const answer of await Promise.all(running)) expect(answer.status).toBe(200);
    expect((await search(SCAN, { headers: { authorization } })).status).toBe(200);
    expect(await queriesRun()).toBe(before + 3);
  });
});
