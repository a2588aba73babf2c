/**
 * Refreshes of one index, coalesced: callers that ask while a refresh is already waiting to start share it, since
 * a refresh that starts after their writes were acknowledged makes all of them searchable. A refresh already
 * running may have started before a caller's writes, so that caller waits for the next one. Concurrent sync runs
 * of the same entity (one shared index) thus cost at most two refreshes in flight instead of one each.
 */
export class CoalescedRefresh {
  readonly #refresh: (index: string) => Promise<void>;
  readonly #running = new Map<string, Promise<void>>();
  readonly #waiting = new Map<string, Promise<void>>();

  constructor(refresh: (index: string) => Promise<void>) {
    this.#refresh = refresh;
  }

  refresh(index: string): Promise<void> {
    const waiting = this.#waiting.get(index);
    if (waiting) return waiting;
    const running = this.#running.get(index) ?? Promise.resolve();
    const next = running
      .catch(() => undefined)
      .then(() => {
        // Starting now: whoever asks from here on needs a later refresh.
        this.#waiting.delete(index);
        const started = this.#refresh(index);
        this.#running.set(index, started);
        return started.finally(() => {
          if (this.#running.get(index) === started) this.#running.delete(index);
        });
      });
    this.#waiting.set(index, next);
    return next;
  }
}
