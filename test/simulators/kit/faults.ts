import type { Context, MiddlewareHandler } from 'hono';

/**
 * A planned failure: the next `count` matching requests answer `status` (429 carries Retry-After when
 * `retryAfterSeconds` is set), have their connection cut (`reset`), or are held (`hold`) until the test calls
 * `release()`: then they answer `status` if given, else as the simulator normally would.
 */
export interface Fault {
  status?: number;
  count: number;
  retryAfterSeconds?: number;
  /** Only requests whose path contains this string. */
  pathIncludes?: string;
  /** Only requests of this method. */
  method?: string;
  /** A vendor-shaped body; defaults to a small JSON error. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Destroy the connection without answering (a connection reset). */
  reset?: boolean;
  /** Hold the request until `release()` (an upstream that stops answering: the caller times out). */
  hold?: boolean;
  /** Apply the request, then hold its answer until `release()` (the upstream acted; the caller has not heard). */
  holdAnswer?: boolean;
}

interface NodeBindings {
  incoming?: { socket?: { destroy(): void } };
}

/**
 * Faults on demand, for tests (`sim.faults.add(...)`) and by HTTP (`POST /__sim/faults`), plus a request log.
 * Every simulator mounts it first, so 429 storms and 5xx bursts look like the real vendor's.
 */
export class FaultInjector {
  readonly #faults: Fault[] = [];
  readonly #held: (() => void)[] = [];
  readonly #heldWaiters: { count: number; resolve: () => void }[] = [];
  #heldTotal = 0;
  readonly requests: { method: string; path: string; query: string; at: number }[] = [];

  add(fault: Fault): void {
    this.#faults.push({ ...fault });
  }

  clear(): void {
    this.#faults.length = 0;
  }

  /** Lets every held request go on (tests call it before closing the simulator too). */
  release(): void {
    for (const go of this.#held.splice(0)) go();
  }

  /** How many requests have been held so far (a baseline for `held`). */
  get heldTotal(): number {
    return this.#heldTotal;
  }

  /** Resolves once `count` requests in all have been held: the test knows the upstream has the call. */
  held(count = 1): Promise<void> {
    if (this.#heldTotal >= count) return Promise.resolve();
    return new Promise((resolve) => this.#heldWaiters.push({ count, resolve }));
  }

  #hold(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#held.push(resolve);
      this.#heldTotal++;
      for (const waiter of this.#heldWaiters.filter((w) => w.count <= this.#heldTotal)) {
        this.#heldWaiters.splice(this.#heldWaiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    });
  }

  middleware(defaultBody: (status: number) => unknown): MiddlewareHandler {
    return async (c, next) => {
      const url = new URL(c.req.url);
      if (url.pathname === '/__sim/faults' && c.req.method === 'POST') {
        this.add((await c.req.json()) as Fault);
        return c.json({ ok: true });
      }
      this.requests.push({ method: c.req.method, path: url.pathname, query: url.search, at: Date.now() });
      const fault = this.#faults.find(
        (f) =>
          f.count > 0 &&
          (!f.pathIncludes || url.pathname.includes(f.pathIncludes)) &&
          (!f.method || f.method === c.req.method),
      );
      if (!fault) return next();
      fault.count--;
      if (fault.reset) {
        (c.env as NodeBindings | undefined)?.incoming?.socket?.destroy();
        return new Response(null, { status: 500 });
      }
      if (fault.holdAnswer) {
        await next();
        await this.#hold();
        return;
      }
      if (fault.hold) {
        await this.#hold();
        if (fault.status === undefined) return next();
      }
      return respond(c, fault, defaultBody);
    };
  }
}

function respond(c: Context, fault: Fault, defaultBody: (status: number) => unknown): Response {
  const status = fault.status ?? 500;
  const headers: Record<string, string> = { 'content-type': 'application/json', ...fault.headers };
  if (status === 429 && fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
  return c.body(JSON.stringify(fault.body ?? defaultBody(status)), status as 429, headers);
}
