import { describe, expect, it } from 'vitest';
import { WaitingBatches } from './waiting-batches.ts';

interface Item {
  readonly tenant: string;
  readonly name: string;
}

/** A line whose sends stay out until the test releases them, so the order is the test's alone. */
function line(options: { requests: number; batch: number; perTenantWaiting?: number }) {
  const sent: string[][] = [];
  const releases: (() => void)[] = [];
  const batches = new WaitingBatches<Item>(
    (items) => {
      sent.push(items.map((i) => i.name));
      return new Promise<void>((resolve) => releases.push(resolve));
    },
    { maxWaitMs: 60_000, overflow: 0, ...options },
  );
  const release = async () => {
    releases.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { batches, sent, release };
}

const items = (tenant: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({ tenant, name: `${tenant}${i + 1}` }));

describe('WaitingBatches shared between tenants', () => {
  it('serves the tenant with the fewest out first: one waiting item of B goes before the many of A', async () => {
    const { batches, sent, release } = line({ requests: 2, batch: 1 });
    for (const item of items('a', 6)) batches.add(item);
    batches.add({ tenant: 'b', name: 'b1' });
    expect(sent).toEqual([['a1'], ['a2']]);
    await release();
    expect(sent.at(-1)).toEqual(['b1']);
    await release();
    await release();
    expect(sent.slice(3)).toEqual([['a3'], ['a4']]);
  });

  it('fills a batch in turn across tenants', async () => {
    const { batches, sent, release } = line({ requests: 1, batch: 4 });
    batches.add({ tenant: 'x', name: 'x0' });
    for (const item of [...items('a', 4), ...items('b', 2), ...items('c', 1)]) batches.add(item);
    expect(batches.waiting).toBe(7);
    await release();
    expect(sent[1]).toEqual(['a1', 'b1', 'c1', 'a2']);
    await release();
    expect(sent[2]).toEqual(['b2', 'a3', 'a4']);
  });

  it('bounds each tenant queue and lets a waiting item be taken out', async () => {
    const { batches, sent, release } = line({ requests: 1, batch: 4, perTenantWaiting: 2 });
    expect(batches.add({ tenant: 'a', name: 'a0' })).toBe(true);
    const accepted = items('a', 3).map((item) => batches.add(item));
    expect(accepted).toEqual([true, true, false]);
    const b1 = { tenant: 'b', name: 'b1' };
    expect(batches.add(b1)).toBe(true);
    expect(batches.remove(b1)).toBe(true);
    expect(batches.remove(b1)).toBe(false);
    await release();
    expect(sent).toEqual([['a0'], ['a1', 'a2']]);
  });
});
