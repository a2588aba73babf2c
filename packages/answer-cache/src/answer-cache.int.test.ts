import type { ChangeWithPrior } from '@conduit/db';
import { planSearch } from '@conduit/search-dsl';
import { describe, expect, it } from 'vitest';
import { AnswerCache, type AnswerMeta } from './answer-cache.ts';
import { ChangeSignals, signalKeys } from './change-signals.ts';
import { testRedis } from './test-redis.ts';

const { redis, connect, namespace: freshNamespace } = testRedis();

const PAID = planSearch(
  { query: { filter: { eq: { status: 'paid' } } } },
  {
    searchable: { id: { type: 'string', nullable: true }, status: { type: 'string', nullable: true } },
    recordKey: 'id',
    connectorId: 'c1',
    entity: 'Kind/invoices',
    cursorKey: 'k'.repeat(32),
  },
).search.filter;

/** A cache over a fresh namespace whose feed holds `changes` (the test adds to it), and a count of computations. */
async function cacheWith(changes: ChangeWithPrior[]) {
  const namespace = freshNamespace('t_answers');
  const cache = await AnswerCache.start({
    redis: connect(),
    namespace,
    enabled: true,
    feed: {
      head: async () => ({ lastSeq: 0, purgedThrough: 0 }),
      readWithPrior: async (_connector, _entity, range) =>
        changes.filter((c) => c.seq > range.after && c.seq <= range.through).slice(0, range.limit),
    },
  });
  const signals = new ChangeSignals(redis, namespace);
  let computed = 0;
  const ask = (during?: () => Promise<void>) =>
    cache.answer(
      { scope: { connectorId: 'c1', entity: 'invoices' }, key: 'paid', filter: PAID },
      async (meta: AnswerMeta) => {
        computed++;
        await during?.();
        return { body: Buffer.from(JSON.stringify({ data: [], meta: { took_ms: 1, total: computed, ...meta } })) };
      },
      async () => undefined,
    );
  return { cache, signals, ask, computed: () => computed, namespace };
}

const change = (seq: number, status: string, prior: Record<string, unknown> | null): ChangeWithPrior => ({
  seq,
  type: prior ? 'record.updated' : 'record.created',
  key: `inv-${seq}`,
  record: { id: `inv-${seq}`, status },
  prior,
});

describe('AnswerCache: a kept answer never outlives a change that concerns it', () => {
  it('checks a change announced while the answer was computed before serving it', async () => {
    const changes: ChangeWithPrior[] = [];
    const { cache, signals, ask, computed } = await cacheWith(changes);
    try {
      // The engine computes from a state before change 1, whose announcement arrives meanwhile.
      const first = await ask(async () => {
        changes.push(change(1, 'paid', null));
        await signals.announce('c1', 'invoices', 1);
        await new Promise((resolve) => setTimeout(resolve, 100));
      });
      expect(first.status === 200 && first.cache).toBe('miss');
      const again = await ask();
      expect(again.status === 200 && again.cache).toBe('miss');
      expect(computed()).toBe(2);
      // A change outside the filter since: kept.
      changes.push(change(2, 'draft', null));
      await signals.announce('c1', 'invoices', 2);
      const kept = await ask();
      expect(kept.status === 200 && kept.cache).toBe('hit');
      expect(computed()).toBe(2);
    } finally {
      await cache.close();
    }
  });

  it('computes a question asked by many at once once, and serves the others what it keeps', async () => {
    const { cache, ask, computed } = await cacheWith([]);
    try {
      const { promise: slow, resolve: release } = Promise.withResolvers<void>();
      const leader = ask(() => slow);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const followers = Array.from({ length: 5 }, () => ask());
      await new Promise((resolve) => setTimeout(resolve, 50));
      release();
      const answers = await Promise.all([leader, ...followers]);
      expect(computed()).toBe(1);
      expect(answers.map((a) => a.status === 200 && a.cache)).toEqual(['miss', 'hit', 'hit', 'hit', 'hit', 'hit']);
    } finally {
      await cache.close();
    }
  });

  it('does not serve one asking after a change what was being computed before it, when the change concerns it', async () => {
    const changes: ChangeWithPrior[] = [];
    const { cache, signals, ask, computed } = await cacheWith(changes);
    try {
      let follower: ReturnType<typeof ask> | undefined;
      await ask(async () => {
        changes.push(change(1, 'paid', null));
        await signals.announce('c1', 'invoices', 1);
        follower = ask();
        await new Promise((resolve) => setTimeout(resolve, 100));
      });
      const late = await follower!;
      expect(late.status === 200 && late.cache).toBe('miss');
      expect(computed()).toBe(2);
    } finally {
      await cache.close();
    }
  });

  it('keeps nothing asked before it may have missed an announcement', async () => {
    const { cache, ask, computed, namespace } = await cacheWith([]);
    try {
      // A number skipped while the answer is computed: the reader drops everything, and this answer with it.
      await ask(async () => {
        await redis.incr(signalKeys(namespace).counter);
        await new ChangeSignals(redis, namespace).announce('c1', 'other', 1);
        await new Promise((resolve) => setTimeout(resolve, 100));
      });
      await ask();
      expect(computed()).toBe(2);
      expect((await ask()).status === 200 && computed()).toBe(2);
    } finally {
      await cache.close();
    }
  });
});
