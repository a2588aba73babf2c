import type { RunWrite } from '@conduit/db';
import { describe, expect, it } from 'vitest';
import { WritePipeline } from './write-pipeline.ts';

/** A promise the test settles when it says. */
function held<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('WritePipeline: group writes overlap, their tails run one at a time in group order', () => {
  it('runs the tails in the order the groups were pushed, whatever order their writes land in', async () => {
    const pipeline = new WritePipeline(3);
    const writes = [held<string>(), held<string>(), held<string>()];
    const tails: string[] = [];
    for (const write of writes) {
      pipeline.push(write.promise, async (written) => {
        tails.push(written);
        return 'ok';
      });
    }
    writes[2]!.resolve('third');
    writes[1]!.resolve('second');
    await tick();
    expect(tails).toEqual([]);
    writes[0]!.resolve('first');
    expect(await pipeline.drain()).toBe('ok');
    expect(tails).toEqual(['first', 'second', 'third']);
  });

  it('starts a tail only once the tail before it is done', async () => {
    const pipeline = new WritePipeline(2);
    const firstTail = held<RunWrite>();
    const started: number[] = [];
    pipeline.push(Promise.resolve(1), (n) => {
      started.push(n);
      return firstTail.promise;
    });
    pipeline.push(Promise.resolve(2), async (n) => {
      started.push(n);
      return 'ok';
    });
    await tick();
    expect(started).toEqual([1]);
    firstTail.resolve('ok');
    expect(await pipeline.drain()).toBe('ok');
    expect(started).toEqual([1, 2]);
  });

  it('gives room for a group while at most `depth` writes are in flight, and waits for the oldest beyond', async () => {
    const pipeline = new WritePipeline(2);
    const writes = [held<number>(), held<number>()];
    for (const write of writes) pipeline.push(write.promise, async () => 'ok');
    let room = false;
    const slot = pipeline.slot().then((outcome) => {
      room = true;
      return outcome;
    });
    await tick();
    expect(room).toBe(false);
    writes[0]!.resolve(0);
    expect(await slot).toBe('ok');
    writes[1]!.resolve(1);
    expect(await pipeline.drain()).toBe('ok');
  });

  it('stops at the first tail that is not ok: the tails after it do not run, and say the same', async () => {
    const pipeline = new WritePipeline(3);
    const ran: number[] = [];
    const outcomes: RunWrite[] = ['ok', 'deleted', 'ok'];
    outcomes.forEach((outcome, i) => {
      pipeline.push(Promise.resolve(i), async (n) => {
        ran.push(n);
        return outcome;
      });
    });
    expect(await pipeline.drain()).toBe('deleted');
    await pipeline.settled();
    expect(ran).toEqual([0, 1]);
  });

  it('fails every tail after a failed write, so no later checkpoint is saved', async () => {
    const pipeline = new WritePipeline(3);
    const ran: number[] = [];
    pipeline.push(Promise.resolve(0), async (n) => {
      ran.push(n);
      return 'ok';
    });
    pipeline.push(Promise.reject(new Error('bulk refused')), async () => 'ok');
    pipeline.push(Promise.resolve(2), async (n) => {
      ran.push(n);
      return 'ok';
    });
    await expect(pipeline.drain()).rejects.toThrow('bulk refused');
    await pipeline.settled();
    expect(ran).toEqual([0]);
  });

  it('reports its waits to the caller by phase', async () => {
    const phases: string[] = [];
    const pipeline = new WritePipeline(1, (phase, wait) => {
      phases.push(phase);
      return wait;
    });
    pipeline.push(Promise.resolve(0), async () => 'ok');
    expect(await pipeline.slot()).toBe('ok');
    expect(await pipeline.drain()).toBe('ok');
    expect(phases).toEqual(['bulk_wait', 'tail_wait']);
  });

  it('refuses a depth below one when it is built', () => {
    expect(() => new WritePipeline(0)).toThrow(RangeError);
  });
});
