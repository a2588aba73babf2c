import type { RunWrite } from '@conduit/db';

/** Where a pipeline's waits go: its caller's phase timings (`bulk_wait`, `tail_wait`). */
export type PipelineWaits = <T>(phase: 'bulk_wait' | 'tail_wait', wait: Promise<T>) => Promise<T>;

interface Group {
  /** The group's write to the copy (started when it was pushed). */
  readonly written: Promise<unknown>;
  /** The group's tail, chained after the tail before it. */
  readonly done: Promise<RunWrite>;
}

/**
 * A sync run's writes, pipelined: up to `depth` groups are written to the copy at once, so the engine is not idle
 * while a group's tail (its change-feed append, then its checkpoint and heartbeat) and the next upstream pages are
 * awaited. The tails run one at a time, in group order, each once its own write and the tail before it are done:
 * the feed keeps the order the copy applied the writes (two groups holding the same record: the engine keeps the
 * newer read and refuses the older as stale, whichever lands first, and only an applied write is appended), and a
 * checkpoint is only saved once its group and every group before it are written and in the feed (a crash re-reads
 * from the last one: nothing is lost). A failed group fails every tail after it, so no later checkpoint is saved,
 * and a tail that answers other than `ok` (the connector deleted, the run superseded) stops every tail after it.
 *
 * @example
 * const pipeline = new WritePipeline(2);
 * pipeline.push(copy.writeRecords(...), async (written) => syncStates.saveCheckpoint(run, checkpoint, written.indexed));
 * if ((await pipeline.slot()) !== 'ok') stop();
 * await pipeline.drain();
 */
export class WritePipeline {
  readonly #depth: number;
  readonly #waits: PipelineWaits;
  /** Groups whose tails have not been awaited yet, oldest first. */
  readonly #inFlight: Group[] = [];
  #previous: Promise<RunWrite> = Promise.resolve('ok');

  constructor(depth: number, waits: PipelineWaits = (_phase, wait) => wait) {
    if (!Number.isInteger(depth) || depth < 1) throw new RangeError(`a write pipeline needs depth >= 1, got ${depth}`);
    this.#depth = depth;
    this.#waits = waits;
  }

  /** Adds a group whose write has started; `tail` runs with its result once it and every earlier tail are done. */
  push<W>(write: Promise<W>, tail: (written: W) => Promise<RunWrite>): void {
    const after = this.#previous;
    const done = (async (): Promise<RunWrite> => {
      const written = await write;
      const prior = await after;
      if (prior !== 'ok') return prior;
      return tail(written);
    })();
    // Awaited when its slot is needed (or by drain); until then a failure must not surface as an unhandled rejection.
    done.catch(() => undefined);
    write.catch(() => undefined);
    this.#previous = done;
    this.#inFlight.push({ written: write, done });
  }

  /**
   * Waits until at most `keep` groups are unfinished: the first outcome that is not `ok`, if any. A failed write
   * or tail rejects.
   */
  async drain(keep = 0): Promise<RunWrite> {
    while (this.#inFlight.length > keep) {
      const outcome = await this.#waits('tail_wait', this.#inFlight.shift()!.done);
      if (outcome !== 'ok') return outcome;
    }
    return 'ok';
  }

  /**
   * Room for one more group: at most `depth` writes in flight, and `depth` groups waiting for their tails (with 1,
   * the next group's write overlaps the last group's tail only).
   */
  async slot(): Promise<RunWrite> {
    const outcome = await this.drain(this.#depth);
    if (outcome !== 'ok' || this.#inFlight.length < this.#depth) return outcome;
    await this.#waits(
      'bulk_wait',
      this.#inFlight[this.#inFlight.length - this.#depth]!.written.catch(() => undefined),
    );
    return 'ok';
  }

  /** Waits for every group pushed to finish, whatever its outcome (a failed run leaves the groups before it to land). */
  async settled(): Promise<void> {
    await Promise.allSettled(this.#inFlight.map((group) => group.done));
  }
}
