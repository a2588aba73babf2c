export interface WaitingBatchesOptions {
  /** Requests at once. What arrives while they are all out waits for the next one to come back. */
  readonly requests: number;
  /** The most waiting items one request carries. */
  readonly batch: number;
  /**
   * The longest an item waits for a request to come back, in ms: then what waits leaves anyway, on one of
   * `overflow` requests more, so a few slow requests holding every one delay a quick one by this much at most.
   */
  readonly maxWaitMs: number;
  /** Requests beyond `requests` for what has waited `maxWaitMs`. */
  readonly overflow: number;
}

/**
 * Items sent with at most `requests` requests at once: an item that finds one free leaves alone at once, so one
 * item in flight waits for nothing; under load, the items that arrive while every request is out leave together
 * when one comes back. `send` takes one or more items and settles each of them itself: it must not reject.
 */
export class WaitingBatches<T> {
  readonly #send: (items: T[]) => Promise<void>;
  readonly #options: WaitingBatchesOptions;
  readonly #waiting: T[] = [];
  #inFlight = 0;
  #waitLimit: NodeJS.Timeout | undefined;

  constructor(send: (items: T[]) => Promise<void>, options: WaitingBatchesOptions) {
    this.#send = send;
    this.#options = options;
  }

  add(item: T): void {
    this.#waiting.push(item);
    this.#sendWaiting();
  }

  /** Sends everything that waits now, as on closing. */
  flush(): void {
    this.#sendWaiting(true);
  }

  #sendWaiting(waitedTooLong = false): void {
    const { requests, batch, maxWaitMs, overflow } = this.#options;
    const limit = waitedTooLong ? requests + overflow : requests;
    while (this.#inFlight < limit && this.#waiting.length > 0) {
      this.#inFlight++;
      void this.#send(this.#waiting.splice(0, batch)).finally(() => {
        this.#inFlight--;
        this.#sendWaiting();
      });
    }
    if (this.#waiting.length === 0) {
      clearTimeout(this.#waitLimit);
      this.#waitLimit = undefined;
    } else {
      this.#waitLimit ??= setTimeout(() => {
        this.#waitLimit = undefined;
        this.#sendWaiting(true);
      }, maxWaitMs);
    }
  }
}
