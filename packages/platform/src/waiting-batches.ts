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
  /** Items one tenant may have waiting at once; `add` refuses more. */
  readonly perTenantWaiting?: number;
}

/** An item of the waiting line, and whose it is: the line is shared fairly between tenants. */
export interface TenantItem {
  readonly tenant: string;
}

/**
 * Items sent with at most `requests` requests at once: an item that finds one free leaves alone at once, so one
 * item in flight waits for nothing; under load, the items that arrive while every request is out leave together
 * when one comes back. `send` takes one or more items and settles each of them itself: it must not reject.
 *
 * The waiting line is one queue per tenant, served in turn (one item of each tenant that waits, then the next
 * round), so a tenant with many items waiting delays another's by at most one of its own per round; each tenant's
 * queue is bounded (`perTenantWaiting`), so one tenant cannot grow the line without limit.
 */
export class WaitingBatches<T extends TenantItem> {
  readonly #send: (items: T[]) => Promise<void>;
  readonly #options: WaitingBatchesOptions;
  /** Tenants in serving order: a tenant just served moves to the back. */
  readonly #queues = new Map<string, T[]>();
  #waiting = 0;
  #inFlight = 0;
  #waitLimit: NodeJS.Timeout | undefined;

  constructor(send: (items: T[]) => Promise<void>, options: WaitingBatchesOptions) {
    this.#send = send;
    this.#options = options;
  }

  /** Queues `item`; false (nothing queued) when its tenant already has `perTenantWaiting` items waiting. */
  add(item: T): boolean {
    const queue = this.#queues.get(item.tenant) ?? [];
    if (this.#options.perTenantWaiting !== undefined && queue.length >= this.#options.perTenantWaiting) return false;
    queue.push(item);
    this.#queues.set(item.tenant, queue);
    this.#waiting++;
    this.#sendWaiting();
    return true;
  }

  /** Takes `item` out of the line if it still waits (its caller went away); true when it did. */
  remove(item: T): boolean {
    const queue = this.#queues.get(item.tenant);
    const at = queue?.indexOf(item) ?? -1;
    if (!queue || at < 0) return false;
    queue.splice(at, 1);
    this.#waiting--;
    if (queue.length === 0) this.#queues.delete(item.tenant);
    return true;
  }

  /** Items waiting now, all tenants together. */
  get waiting(): number {
    return this.#waiting;
  }

  /** Sends everything that waits now, as on closing. */
  flush(): void {
    this.#sendWaiting(true);
  }

  #sendWaiting(waitedTooLong = false): void {
    const { requests, batch, maxWaitMs, overflow } = this.#options;
    const limit = waitedTooLong ? requests + overflow : requests;
    while (this.#inFlight < limit && this.#waiting > 0) {
      this.#inFlight++;
      void this.#send(this.#take(batch)).finally(() => {
        this.#inFlight--;
        this.#sendWaiting();
      });
    }
    if (this.#waiting === 0) {
      clearTimeout(this.#waitLimit);
      this.#waitLimit = undefined;
    } else {
      this.#waitLimit ??= setTimeout(() => {
        this.#waitLimit = undefined;
        this.#sendWaiting(true);
      }, maxWaitMs);
    }
  }

  /** Up to `max` items, one per tenant in turn. */
  #take(max: number): T[] {
    const taken: T[] = [];
    while (taken.length < max && this.#waiting > 0) {
      for (const tenant of [...this.#queues.keys()]) {
        if (taken.length >= max) break;
        const queue = this.#queues.get(tenant)!;
        taken.push(queue.shift()!);
        this.#waiting--;
        this.#queues.delete(tenant);
        if (queue.length > 0) this.#queues.set(tenant, queue);
      }
    }
    return taken;
  }
}
