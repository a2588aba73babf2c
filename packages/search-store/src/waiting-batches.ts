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
 * The waiting line is one queue per tenant. The next item is always of the tenant with the fewest items in flight
 * (ties: in turn, the tenant served last goes to the back), so a tenant with many items out or waiting never
 * delays another's by more than one of its own; each tenant's queue is bounded (`perTenantWaiting`), so one
 * tenant cannot grow the line without limit.
 */
export class WaitingBatches<T extends TenantItem> {
  readonly #send: (items: T[]) => Promise<void>;
  readonly #options: WaitingBatchesOptions;
  /** Tenants in serving order: a tenant just served moves to the back. */
  readonly #queues = new Map<string, T[]>();
  /** Items of each tenant sent and not yet settled. */
  readonly #outByTenant = new Map<string, number>();
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
      const items = this.#take(batch);
      void this.#send(items).finally(() => {
        this.#inFlight--;
        for (const { tenant } of items) {
          const out = (this.#outByTenant.get(tenant) ?? 1) - 1;
          if (out > 0) this.#outByTenant.set(tenant, out);
          else this.#outByTenant.delete(tenant);
        }
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

  /** Up to `max` items, each of the tenant with the fewest out at that point. */
  #take(max: number): T[] {
    const taken: T[] = [];
    while (taken.length < max && this.#waiting > 0) {
      let next: string | undefined;
      let fewest = Number.POSITIVE_INFINITY;
      for (const tenant of this.#queues.keys()) {
        const out = this.#outByTenant.get(tenant) ?? 0;
        if (out < fewest) {
          fewest = out;
          next = tenant;
        }
      }
      const queue = this.#queues.get(next!)!;
      taken.push(queue.shift()!);
      this.#waiting--;
      this.#outByTenant.set(next!, fewest + 1);
      this.#queues.delete(next!);
      if (queue.length > 0) this.#queues.set(next!, queue);
    }
    return taken;
  }
}
