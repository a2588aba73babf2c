import type { ApiRuntime } from '@conduit/api';
import { findConnectorDefinition } from '@conduit/connectors';
import type { ConnectorRow } from '@conduit/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InvoiceCopy, invoice, invoiceCopy, STATUSES, seeded } from '../harness/invoice-changes.ts';
import { closeInOrder, startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/**
 * The answer cache against the engine (docs/architecture.md, "The answer cache"): random streams of changes (creations,
 * updates that move invoices in and out of filters, removals), each applied as every writer applies it (the copy's
 * write without a refresh, then the feed's append), and after each batch random questions (filters, count_by, sum,
 * histograms, pages sorted by amount, SQL GROUP BY). Every answer the API serves, from memory or not, must equal
 * the answer of an API that keeps none (ANSWER_CACHE=off), which refreshes the engine first: zero mismatches.
 *
 * ANSWER_CACHE_DIFF_CHANGES sets the number of changes (a test knob: 80 by default, 100000 for the full run);
 * ANSWER_CACHE_DIFF_SEED the seed.
 */
const CHANGES = Number(process.env.ANSWER_CACHE_DIFF_CHANGES ?? 80);
const SEED = Number(process.env.ANSWER_CACHE_DIFF_SEED ?? Date.now() % 1_000_000);
/** Invoices come and go among this many ids: updates and removals find records often. */
const IDS = 60;
const QUESTIONS_PER_BATCH = 3;
/** Each test's time limit: an hour, more for the full run (about 30 ms a change on a quiet two-core machine). */
const TIME_LIMIT_MS = Math.max(3_600_000, CHANGES * 100);

type Question =
  | { readonly kind: 'search'; readonly params: unknown }
  | { readonly kind: 'sql'; readonly query: string };

/** The questions asked, a dashboard's panels: each is asked again and again while the invoices change. */
function questions(random: () => number): Question[] {
  const status = () => STATUSES[Math.floor(random() * STATUSES.length)]!;
  const amount = () => (Math.floor(random() * 100_000) / 100).toFixed(2);
  const filters: unknown[] = [
    { eq: { status: status() } },
    { in: { status: [status(), status()] } },
    { gt: { total: amount() } },
    { and: [{ eq: { status: status() } }, { lte: { total: amount() } }] },
    { or: [{ eq: { status: status() } }, { gte: { invoice_date: '2024-07-01T00:00:00Z' } }] },
    { not: { eq: { status: status() } } },
    { lt: { invoice_date: '2024-04-01T00:00:00Z' } },
    { eq: { memo: 'annual plan' } },
    // Narrow ones, which most changes fall outside of (kept answers), and one by keys (a lookup, not a search).
    { and: [{ eq: { status: status() } }, { eq: { memo: 'seats true-up' } }] },
    { gt: { total: '900.00' } },
    { in: { id: ['inv-1', 'inv-2', 'inv-3'] } },
  ];
  const searches: Question[] = filters.flatMap((filter) => [
    {
      kind: 'search' as const,
      params: {
        query: { filter },
        limit: 0,
        aggregate: {
          by_status: { count_by: 'status' },
          revenue: { sum: 'total' },
          months: { histogram: 'invoice_date', interval: 'month' },
        },
      },
    },
    { kind: 'search' as const, params: { query: { filter, sort: [{ total: 'desc' }] }, limit: 5 } },
  ]);
  const sql: Question[] = [
    'SELECT status, COUNT(*) AS n, SUM(total) AS revenue FROM invoices WHERE total > 100 GROUP BY status ORDER BY status',
    "SELECT DATE_TRUNC('month', invoice_date) AS month, COUNT(*) AS n FROM invoices WHERE status <> 'void' GROUP BY 1 ORDER BY 1",
    "SELECT COUNT(*) AS n, MAX(total) AS largest FROM invoices WHERE status IN ('paid', 'issued')",
    "SELECT id, total FROM invoices WHERE status = 'draft' ORDER BY total DESC, id LIMIT 5",
  ].map((query) => ({ kind: 'sql' as const, query }));
  return [
    ...searches,
    ...sql,
    { kind: 'search', params: { query: {}, limit: 100 } },
    // By keys alone: answered by a multi-get of the documents.
    { kind: 'search', params: { query: { filter: { in: { id: ['inv-1', 'inv-2', 'inv-3'] } } } } },
  ];
}

/** The answer without what may differ between two computations of it: the engine's time, the cursor, the cache. */
function comparable(answer: unknown): unknown {
  const page = answer as { meta: Record<string, unknown> };
  const { took_ms: _took, as_of: _asOf, cache: _cache, synced_at: _synced, ...meta } = page.meta;
  return { ...page, meta };
}

describe('kept answers equal the engine’s, whatever changes', () => {
  let platform: TestPlatform;
  let fresh: ApiRuntime;
  let copy: InvoiceCopy;
  let row: ConnectorRow;

  beforeAll(async () => {
    // Questions come as fast as hits answer them: more than a client's default rate limit.
    platform = await startTestPlatform({ worker: false, env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
    fresh = await platform.secondApi({ ANSWER_CACHE: 'off' });
    copy = await invoiceCopy(platform.api.deps, platform.organizationId);
    row = (await platform.api.deps.connectors.find(platform.organizationId, copy.connectorId))!;
  }, 120_000);
  afterAll(() => closeInOrder(fresh, platform));

  /** Asked over HTTP of the API under test (kept answers on). */
  const served = async (question: Question) => {
    const response =
      question.kind === 'search'
        ? await platform.call('POST', `/api/v1/integrations/connectors/${copy.connectorId}/execute`, {
            entity: 'invoices',
            action: 'search',
            params: question.params,
          })
        : await platform.call('POST', `/api/v1/integrations/connectors/${copy.connectorId}/sql`, {
            query: question.query,
          });
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as { meta: { cache: string } };
  };
  /** Computed by the engine after its refresh (an API that keeps nothing). */
  const computed = async (question: Question) => {
    const catalog = findConnectorDefinition('Orb')!.catalog;
    const answer =
      question.kind === 'search'
        ? await fresh.deps.search.search(row, copy.entity, question.params)
        : await fresh.deps.search.sql(row, catalog, { query: question.query });
    if (answer.status !== 200) throw new Error(`answered ${answer.status}`);
    return JSON.parse(answer.body.toString()) as unknown;
  };

  /** One batch of random changes to the invoices (1 to `maxBatch`): creations, updates, removals. Returns its size. */
  const changeSome = async (random: () => number, live: Set<string>, maxBatch: number) => {
    const size = 1 + Math.floor(random() * maxBatch);
    const writes: Record<string, unknown>[] = [];
    const removals: string[] = [];
    for (let k = 0; k < size; k++) {
      const id = `inv-${Math.floor(random() * IDS)}`;
      if (live.has(id) && random() < 0.2) {
        removals.push(id);
        live.delete(id);
      } else {
        writes.push(invoice(id, random));
        live.add(id);
      }
    }
    // A record written and removed in one batch: the later of the two is what the copy ends with.
    const removed = new Set(removals);
    if (writes.length > 0) await copy.write(writes.filter((w) => !removed.has(w.id as string)));
    if (removals.length > 0) await copy.remove(removals);
    return size;
  };

  /** Asks `question` of the API under test and of the one that keeps nothing: a mismatch, described, or undefined. */
  const compare = async (question: Question, applied: number, tally: { answers: number; hits: number }) => {
    const answer = await served(question);
    tally.answers++;
    if (answer.meta.cache === 'hit') tally.hits++;
    const expected = comparable(await computed(question));
    const got = comparable(answer);
    if (JSON.stringify(got) === JSON.stringify(expected)) return undefined;
    return `after ${applied} changes, ${JSON.stringify(question)} (${answer.meta.cache}):
  served   ${JSON.stringify(got).slice(0, 600)}
  expected ${JSON.stringify(expected).slice(0, 600)}`;
  };

  it(
    `serves no answer that differs from the engine’s over ${CHANGES} changes (seed ${SEED})`,
    async () => {
      const random = seeded(SEED);
      const asked = questions(random);
      const live = new Set<string>();
      const maxBatch = CHANGES >= 10_000 ? 20 : 4;
      const tally = { answers: 0, hits: 0 };
      const mismatches: string[] = [];
      let applied = 0;
      while (applied < CHANGES) {
        applied += await changeSome(random, live, maxBatch);
        for (let q = 0; q < QUESTIONS_PER_BATCH; q++) {
          const mismatch = await compare(asked[Math.floor(random() * asked.length)]!, applied, tally);
          if (mismatch) mismatches.push(mismatch);
        }
      }
      console.info(
        `answer cache differential: ${applied} changes, ${tally.answers} answers, ${tally.hits} from memory`,
      );
      expect(mismatches.slice(0, 3)).toEqual([]);
      expect(tally.hits).toBeGreaterThan(0);
    },
    TIME_LIMIT_MS,
  );

  it(
    `keeps no answer computed while changes landed that they concern (${CHANGES} changes, seed ${SEED})`,
    async () => {
      // Rounds: changes and questions at once (answers computed and kept while changes land and are announced), then
      // with the changes stopped, every question against the engine.
      const writes = seeded(SEED + 1);
      const picks = seeded(SEED + 2);
      const asked = questions(seeded(SEED));
      const live = new Set<string>();
      const tally = { answers: 0, hits: 0 };
      const mismatches: string[] = [];
      let applied = 0;
      while (applied < CHANGES) {
        const until = Math.min(CHANGES, applied + 20);
        let writing = true;
        const writer = (async () => {
          while (applied < until) applied += await changeSome(writes, live, 4);
          writing = false;
        })();
        const askers = [1, 2].map(async () => {
          while (writing) await served(asked[Math.floor(picks() * asked.length)]!);
        });
        await Promise.all([writer, ...askers]);
        for (const question of asked) {
          const mismatch = await compare(question, applied, tally);
          if (mismatch) mismatches.push(mismatch);
        }
      }
      console.info(`answer cache under concurrent changes: ${applied} changes, ${tally.hits} of ${tally.answers} kept`);
      expect(mismatches.slice(0, 3)).toEqual([]);
    },
    TIME_LIMIT_MS,
  );
});
