import type { Answer } from '@conduit/answer-cache';
import type { ApiRuntime } from '@conduit/api';
import type { ConnectorRow } from '@conduit/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InvoiceCopy, invoice, invoiceCopy, seeded } from '../harness/invoice-changes.ts';
import { closeInOrder, startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/**
 * Answers from memory (docs/api.md, "Answers from memory"; docs/architecture.md, "The answer cache"): a repeated
 * question is answered without the engine while no change since could alter its answer, on every API instance;
 * ETags and If-None-Match; meta.as_of.
 */

type Page = { data: Record<string, unknown>[]; meta: { as_of: string; cache: 'hit' | 'miss'; total?: unknown } };

const PAID = { query: { filter: { eq: { status: 'paid' } } }, limit: 100, aggregate: { sum: { sum: 'total' } } };

describe('answers kept in memory', () => {
  let platform: TestPlatform;
  let second: ApiRuntime;
  let copy: InvoiceCopy;
  let row: ConnectorRow;
  let engineSearches = 0;

  beforeAll(async () => {
    platform = await startTestPlatform({ worker: false });
    second = await platform.secondApi();
    copy = await invoiceCopy(platform.api.deps, platform.organizationId);
    row = (await platform.api.deps.connectors.find(platform.organizationId, copy.connectorId))!;
    const random = seeded(7);
    await copy.write(
      Array.from({ length: 20 }, (_, i) => ({ ...invoice(`inv-${i}`, random), status: i < 5 ? 'paid' : 'draft' })),
    );
    const search = platform.api.deps.copySearch.search.bind(platform.api.deps.copySearch);
    platform.api.deps.copySearch.search = (...args) => {
      engineSearches++;
      return search(...args);
    };
  }, 120_000);
  afterAll(() => closeInOrder(second, platform));

  const ask = (params: unknown, headers: Record<string, string> = {}) =>
    platform.call(
      'POST',
      `/api/v1/integrations/connectors/${copy.connectorId}/execute`,
      { entity: 'invoices', action: 'search', params },
      headers,
    );
  const sql = (query: string, headers: Record<string, string> = {}) =>
    platform.call('POST', `/api/v1/integrations/connectors/${copy.connectorId}/sql`, { query }, headers);
  const pageOf = async (response: Response) => {
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as Page;
  };
  const onSecond = async (params: unknown) => {
    const answer: Answer = await second.deps.search.search(row, copy.entity, params);
    if (answer.status !== 200) throw new Error(`answered ${answer.status}`);
    return JSON.parse(answer.body.toString()) as Page;
  };

  it('answers a repeated question from memory with the same ETag, and 304 to it without asking the engine', async () => {
    const first = await ask(PAID);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^W\/"[\w-]+"$/);
    expect((await pageOf(first)).meta.cache).toBe('miss');
    const before = engineSearches;
    const again = await ask(PAID);
    expect(again.headers.get('etag')).toBe(etag);
    const kept = await pageOf(again);
    expect(kept.meta.cache).toBe('hit');
    expect(kept.data).toHaveLength(5);
    const notModified = await ask(PAID, { 'if-none-match': etag! });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe(etag);
    expect(await notModified.text()).toBe('');
    expect(engineSearches).toBe(before);
  });

  it('keeps the answer through a change outside its filter, and drops it for one moving a record in or out', async () => {
    const etag = (await ask(PAID)).headers.get('etag')!;
    await copy.write([{ ...invoice('inv-10', seeded(1)), status: 'void' }]); // draft -> void: outside before and after
    const outside = await ask(PAID, { 'if-none-match': etag });
    expect(outside.status).toBe(304);

    await copy.write([{ ...invoice('inv-11', seeded(2)), status: 'paid' }]); // draft -> paid: moves in
    const movedIn = await pageOf(await ask(PAID, { 'if-none-match': etag }));
    expect(movedIn.meta.cache).toBe('miss');
    expect(movedIn.data.map((r) => r.id)).toContain('inv-11');
    expect((await pageOf(await ask(PAID))).meta.cache).toBe('hit');

    await copy.write([{ ...invoice('inv-0', seeded(3)), status: 'draft' }]); // paid -> draft: moves out
    const movedOut = await pageOf(await ask(PAID));
    expect(movedOut.meta.cache).toBe('miss');
    expect(movedOut.data.map((r) => r.id)).not.toContain('inv-0');

    await copy.remove(['inv-1']); // a paid one removed
    const removed = await pageOf(await ask(PAID));
    expect(removed.meta.cache).toBe('miss');
    expect(removed.data.map((r) => r.id)).not.toContain('inv-1');
  });

  it('reports in meta.as_of the feed cursor its answer reflects', async () => {
    const { lastSeq } = await platform.api.deps.changeFeed.head(copy.connectorId);
    const page = await pageOf(await ask({ query: {}, limit: 1000 }));
    expect(page.meta.as_of).toBe(String(lastSeq));
    // Every change up to it is in the answer: its records are the feed's last state of each key.
    const state = new Map<string, unknown>();
    for (const event of await platform.api.deps.changeFeed.read(copy.connectorId, { after: 0, limit: 1000 })) {
      if (event.type === 'record.deleted') state.delete(event.key);
      else state.set(event.key, event.record?.status);
    }
    expect(new Map(page.data.map((r) => [r.id, r.status]))).toEqual(state);
  });

  it('gives an as_of after which the feed turns the answer into the copy now, under concurrent writes', async () => {
    const random = seeded(11);
    let writing = true;
    const writer = (async () => {
      while (writing) {
        const id = `inv-${Math.floor(random() * 40)}`;
        if (random() < 0.2) await copy.remove([id]);
        else await copy.write([invoice(id, random)]);
      }
    })();
    const ALL = { query: {}, limit: 1000 };
    const answers: Page[] = [];
    try {
      for (let i = 0; i < 8; i++) answers.push(await pageOf(await ask(ALL)));
    } finally {
      writing = false;
      await writer;
    }
    const off = await platform.secondApi({ ANSWER_CACHE: 'off' });
    try {
      const now = await off.deps.search.search(row, copy.entity, ALL);
      if (now.status !== 200) throw new Error('expected an answer');
      const fresh = JSON.parse(now.body.toString()) as Page;
      const stateOf = (page: Page) => new Map(page.data.map((r) => [r.id as string, `${r.status} ${r.total}`]));
      for (const answer of answers) {
        // The answer, then every event after its as_of, in order.
        const state = stateOf(answer);
        let after = Number(answer.meta.as_of);
        for (;;) {
          const events = await platform.api.deps.changeFeed.read(copy.connectorId, { after, limit: 1000 });
          if (events.length === 0) break;
          for (const event of events) {
            if (event.type === 'record.deleted') state.delete(event.key);
            else state.set(event.key, `${event.record?.status} ${event.record?.total}`);
          }
          after = events.at(-1)!.seq;
        }
        expect(state).toEqual(stateOf(fresh));
      }
    } finally {
      await off.close();
    }
  });

  it('drops on another API instance the answer a change applied through this one concerns', async () => {
    const question = { query: { filter: { eq: { status: 'issued' } } }, limit: 100 };
    expect((await onSecond(question)).meta.cache).toBe('miss');
    expect((await onSecond(question)).meta.cache).toBe('hit');
    await copy.write([{ ...invoice('inv-12', seeded(4)), status: 'void' }]); // outside
    expect((await onSecond(question)).meta.cache).toBe('hit');
    await copy.write([{ ...invoice('inv-13', seeded(5)), status: 'issued' }]); // inside
    const after = await onSecond(question);
    expect(after.meta.cache).toBe('miss');
    expect(after.data.map((r) => r.id)).toContain('inv-13');
  });

  it('keeps SQL answers the same way, GROUP BY included', async () => {
    const query = 'SELECT status, COUNT(*) AS n, SUM(total) AS revenue FROM invoices GROUP BY status ORDER BY status';
    const first = await sql(query);
    expect((await pageOf(first)).meta.cache).toBe('miss');
    const etag = first.headers.get('etag')!;
    expect((await sql(query, { 'if-none-match': etag })).status).toBe(304);
    // Every record is inside a filter-less GROUP BY: any change drops it.
    await copy.write([{ ...invoice('inv-14', seeded(6)), status: 'paid' }]);
    const changed = await sql(query, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    // A WHERE that a change falls outside keeps it.
    const drafts = "SELECT COUNT(*) AS n FROM invoices WHERE status = 'draft'";
    expect((await pageOf(await sql(drafts))).meta.cache).toBe('miss');
    await copy.write([{ ...invoice('inv-90', seeded(8)), status: 'void' }]); // a new one, outside
    expect((await pageOf(await sql(drafts))).meta.cache).toBe('hit');
  });

  it('computes every answer with ANSWER_CACHE=off, still with meta.as_of and an ETag', async () => {
    const off = await platform.secondApi({ ANSWER_CACHE: 'off' });
    try {
      const first = await off.deps.search.search(row, copy.entity, PAID);
      const again = await off.deps.search.search(row, copy.entity, PAID, {
        ifNoneMatch: first.etag,
      });
      if (first.status !== 200) throw new Error('expected an answer');
      expect(JSON.parse(first.body.toString()).meta).toMatchObject({ cache: 'miss', as_of: expect.any(String) });
      // The same copy, so the same ETag (the engine's time aside): a 304, after asking the engine.
      expect(again.status === 304 || JSON.parse(again.body.toString()).meta.cache === 'miss').toBe(true);
    } finally {
      await off.close();
    }
  });
});
