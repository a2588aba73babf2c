import { describe, expect, it } from 'vitest';
import { readAhead } from './read-ahead.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('readAhead', () => {
  it('yields every item in order and overlaps reading the next with work on the current one', async () => {
    const events: string[] = [];
    async function* pages() {
      for (let i = 1; i <= 3; i++) {
        events.push(`read ${i} start`);
        await sleep(20);
        events.push(`read ${i} end`);
        yield i;
      }
    }
    const seen: number[] = [];
    const started = performance.now();
    for await (const page of readAhead(pages())) {
      events.push(`write ${page} start`);
      await sleep(20);
      events.push(`write ${page} end`);
      seen.push(page);
    }
    expect(seen).toEqual([1, 2, 3]);
    // Page 2 is being read while page 1 is written.
    expect(events.indexOf('read 2 start')).toBeLessThan(events.indexOf('write 1 end'));
    // Sequential would take 6 x 20 ms; overlapped about 4 x 20 ms.
    expect(performance.now() - started).toBeLessThan(115);
  });

  it('surfaces a failed read when its item is reached, after the items before it', async () => {
    async function* pages() {
      yield 1;
      throw new Error('upstream 500');
    }
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const page of readAhead(pages())) seen.push(page);
      })(),
    ).rejects.toThrow('upstream 500');
    expect(seen).toEqual([1]);
  });

  it('closes the source when the consumer stops early', async () => {
    let closed = false;
    let reads = 0;
    async function* pages() {
      try {
        for (let i = 1; ; i++) {
          reads++;
          yield i;
        }
      } finally {
        closed = true;
      }
    }
    for await (const page of readAhead(pages())) if (page === 2) break;
    expect(closed).toBe(true);
    expect(reads).toBe(3);
  });
});
