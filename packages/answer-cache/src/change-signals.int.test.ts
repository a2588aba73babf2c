import { describe, expect, it } from 'vitest';
import { type ChangeSignal, ChangeSignals, SignalReader, signalKeys } from './change-signals.ts';
import { testRedis } from './test-redis.ts';

const { redis, connect, namespace: freshNamespace } = testRedis();

/** A reader of a fresh namespace, recording what it is told. */
async function reading() {
  const namespace = freshNamespace('t_signals');
  const seen: ChangeSignal[] = [];
  let missed = 0;
  const reader = new SignalReader(connect(), namespace, {
    onSignals: (signals) => seen.push(...signals),
    onMissed: () => missed++,
    onError: () => undefined,
  });
  await reader.start();
  // Starting counts as having missed what came before (nothing is kept yet): only what follows is counted here.
  missed = 0;
  return { namespace, reader, seen, missed: () => missed, signals: new ChangeSignals(redis, namespace) };
}

describe('change signals: every feed append announced to every API instance', () => {
  it('reads every announcement in order, numbered without gaps, and keeps each connector’s highest head', async () => {
    const { reader, seen, missed, signals } = await reading();
    try {
      await signals.announce('c1', 'invoices', 5);
      await signals.announce('c2', 'customers', 2);
      await signals.announce('c1', 'invoices', 3); // an append of c1 announced late: the head stays at 5
      const { announced } = await signals.position('c1');
      expect(await reader.whenReceived(announced, 5000)).toBe(true);
      expect(seen.map((s) => [s.n, s.connectorId, s.entity, s.lastSeq])).toEqual([
        [1, 'c1', 'invoices', 5],
        [2, 'c2', 'customers', 2],
        [3, 'c1', 'invoices', 3],
      ]);
      expect(missed()).toBe(0);
      expect(await signals.position('c1')).toEqual({ announced: 3, head: 5 });
      expect(await signals.position('c3')).toEqual({ announced: 3, head: undefined });
      await signals.seedHead('c3', 7);
      await signals.seedHead('c1', 1); // never over an announced head
      expect((await signals.position('c3')).head).toBe(7);
      expect((await signals.position('c1')).head).toBe(5);
    } finally {
      await reader.close();
    }
  });

  it('says it may have missed some when a number is skipped (trimmed past it, or the counter started again)', async () => {
    const { namespace, reader, missed, signals } = await reading();
    try {
      await signals.announce('c1', 'invoices', 1);
      expect(await reader.whenReceived(1, 5000)).toBe(true);
      // An announcement the reader never sees: its number is taken, its entry gone.
      await redis.incr(signalKeys(namespace).counter);
      await signals.announce('c1', 'invoices', 3);
      expect(await reader.whenReceived(3, 5000)).toBe(true);
      expect(missed()).toBe(1);
    } finally {
      await reader.close();
    }
  });
});
