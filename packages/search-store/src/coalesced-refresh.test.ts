import { describe, expect, it } from 'vitest';
import { CoalescedRefresh } from './coalesced-refresh.ts';

/** A refresh whose end the test decides, recording when each one started. */
function controlledRefresh() {
  const started: string[] = [];
  const finish: (() => void)[] = [];
  const coalesced = new CoalescedRefresh(async (index) => {
    started.push(index);
    await new Promise<void>((resolve) => finish.push(resolve));
  });
  return { coalesced, started, finishNext: () => finish.shift()?.() };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('CoalescedRefresh', () => {
  it('lets callers that ask while a refresh waits to start share it', async () => {
    const { coalesced, started, finishNext } = controlledRefresh();
    const first = coalesced.refresh('a');
    await turn();
    expect(started).toEqual(['a']);
    // Asked while the first runs: their writes may postdate its start, so they wait for a second one, together.
    const second = coalesced.refresh('a');
    const third = coalesced.refresh('a');
    expect(second).toBe(third);
    await turn();
    expect(started).toEqual(['a']);
    finishNext();
    await first;
    await turn();
    expect(started).toEqual(['a', 'a']);
    finishNext();
    await Promise.all([second, third]);
    expect(started).toHaveLength(2);
  });

  it('keeps indices apart and passes a failure to the callers of that refresh only', async () => {
    let calls = 0;
    const coalesced = new CoalescedRefresh(async (index) => {
      calls++;
      if (index === 'broken') throw new Error('no such index');
    });
    await expect(coalesced.refresh('broken')).rejects.toThrow('no such index');
    await coalesced.refresh('a');
    await coalesced.refresh('a');
    expect(calls).toBe(3);
  });
});
