import { describe, expect, it } from 'vitest';
import { pageGroups } from './page-groups.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const page = (n: number, size = 1) => ({ n, records: Array.from({ length: size }, (_, i) => i) });
const numbers = (groups: { n: number }[][]) => groups.map((g) => g.map((p) => p.n));

describe('pageGroups', () => {
  it('yields every page in order and overlaps reading the next with work on the current one', async () => {
    const events: string[] = [];
    async function* pages() {
      for (let i = 1; i <= 3; i++) {
        events.push(`read ${i} start`);
        await sleep(20);
        events.push(`read ${i} end`);
        yield page(i);
      }
    }
    const seen: number[] = [];
    for await (const group of pageGroups(pages(), { maxRecords: 1, maxAhead: 1 })) {
      for (const p of group) {
        events.push(`write ${p.n} start`);
        await sleep(20);
        events.push(`write ${p.n} end`);
        seen.push(p.n);
      }
    }
    expect(seen).toEqual([1, 2, 3]);
    // Each next page is being read while the one before is written (sequential reading would start it after):
    // the overlap is in the order of events, whatever the machine's load.
    expect(events.indexOf('read 2 start')).toBeLessThan(events.indexOf('write 1 end'));
    expect(events.indexOf('read 3 start')).toBeLessThan(events.indexOf('write 2 end'));
  });

  it('groups the pages read while the previous group was written, up to maxRecords', async () => {
    async function* pages() {
      for (let i = 1; i <= 9; i++) yield page(i, 10);
    }
    const groups: { n: number }[][] = [];
    for await (const group of pageGroups(pages(), { maxRecords: 30, maxAhead: 8 })) {
      groups.push(group);
      await sleep(10);
    }
    // The first group is what had arrived at once; then full groups of 30 records while writes are slower.
    expect(numbers(groups).flat()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(groups.every((g) => g.length >= 1 && g.length <= 3)).toBe(true);
    expect(groups.length).toBeLessThan(9);
  });

  it('hands out a page larger than maxRecords on its own', async () => {
    async function* pages() {
      yield page(1, 50);
      yield page(2, 5);
    }
    const groups: { n: number }[][] = [];
    for await (const group of pageGroups(pages(), { maxRecords: 10, maxAhead: 4 })) groups.push(group);
    expect(numbers(groups)).toEqual([[1], [2]]);
  });

  it('surfaces a failed read when its page is reached, after the pages before it', async () => {
    async function* pages() {
      yield page(1);
      yield page(2);
      throw new Error('upstream 500');
    }
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const group of pageGroups(pages(), { maxRecords: 1, maxAhead: 4 })) {
          for (const p of group) seen.push(p.n);
        }
      })(),
    ).rejects.toThrow('upstream 500');
    expect(seen).toEqual([1, 2]);
  });

  it('closes the source when the consumer stops early, having read at most maxAhead pages ahead', async () => {
    let closed = false;
    let reads = 0;
    async function* pages() {
      try {
        for (let i = 1; ; i++) {
          reads++;
          yield page(i);
        }
      } finally {
        closed = true;
      }
    }
    for await (const group of pageGroups(pages(), { maxRecords: 1, maxAhead: 2 })) if (group[0]!.n === 2) break;
    expect(closed).toBe(true);
    expect(reads).toBeLessThanOrEqual(4);
  });
});
