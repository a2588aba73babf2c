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

/** Which request a hold catches: the next one this predicate accepts. */
export type HoldMatch = (request: { method: string; path: string; query: URLSearchParams }) => boolean;

/**
 * One upstream answer held back: the request was answered from the data as it was when it arrived, and the answer
 * leaves only on `release()`. Tests use it to order a slow read against other work deterministically.
 */
export interface HeldAnswer {
  /** Resolves once a matching request arrived and its answer was computed. */
  readonly reached: Promise<void>;
  release(): void;
}

interface PendingHold {
  matches: HoldMatch;
  claimed: boolean;
  reached(): void;
  released: Promise<void>;
}

/**
 * Faults on demand, for tests (`sim.faults.add(...)`) and by HTTP (`POST /__sim/faults`), plus a request log.
 * Every simulator mounts it first, so 429 storms and 5xx bursts look like the real vendor's. Three ways to hold
 * requests, so a test decides when the upstream answers: a fault with `hold`/`holdAnswer` (`release()`), the
 * answer of one matching request (`hold(match)`), or every request (`holdAll()`).
 */
export class FaultInjector {
  readonly #faults: Fault[] = [];
  readonly #heldByFaults: (() => void)[] = [];
  readonly #heldWaiters: { count: number; resolve: () => void }[] = [];
  #heldTotal = 0;
  readonly #holds: PendingHold[] = [];
  readonly requests: { method: string; path: string; query: string; at: number }[] = [];
  /** While set, every request waits here (after being logged) until `releaseAll()`. */
  #gate: { promise: Promise<void>; open: () => void } | undefined;
  #waiting = 0;

  add(fault: Fault): void {
    this.#faults.push({ ...fault });
  }

  clear(): void {
    this.#faults.length = 0;
  }

  /** Lets every request held by a fault go on (tests call it before closing the simulator too). */
  release(): void {
    for (const go of this.#heldByFaults.splice(0)) go();
  }

  /** How many requests faults have held so far (a baseline for `held`). */
  get heldTotal(): number {
    return this.#heldTotal;
  }

  /** Resolves once faults have held `count` requests in all: the test knows the upstream has the call. */
  held(count = 1): Promise<void> {
    if (this.#heldTotal >= count) return Promise.resolve();
    return new Promise((resolve) => this.#heldWaiters.push({ count, resolve }));
  }

  /** Holds the answer of the next request matching `match` until the test releases it (see HeldAnswer). */
  hold(match: HoldMatch): HeldAnswer {
    let reached!: () => void;
    let release!: () => void;
    const reachedPromise = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.#holds.push({ matches: match, claimed: false, reached, released });
    return { reached: reachedPromise, release };
  }

  /** Holds every request from now on (before it is answered) until `releaseAll()`. */
  holdAll(): void {
    if (this.#gate) return;
    let open: () => void = () => undefined;
    const promise = new Promise<void>((resolve) => {
      open = resolve;
    });
    this.#gate = { promise, open };
  }

  /** Lets every request held by `holdAll()` (and the ones after) through. */
  releaseAll(): void {
    this.#gate?.open();
    this.#gate = undefined;
  }

  /** Requests waiting at `holdAll()`'s gate now. */
  get waiting(): number {
    return this.#waiting;
  }

  #holdByFault(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#heldByFaults.push(resolve);
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
      if (fault) {
        fault.count--;
        if (fault.reset) {
          (c.env as NodeBindings | undefined)?.incoming?.socket?.destroy();
          return new Response(null, { status: 500 });
        }
        if (fault.holdAnswer) {
          await next();
          await this.#holdByFault();
          return;
        }
        if (fault.hold) {
          await this.#holdByFault();
          if (fault.status === undefined) return next();
        }
        return respond(c, fault, defaultBody);
      }
      if (this.#gate) {
        this.#waiting++;
        await this.#gate.promise;
        this.#waiting--;
      }
      const hold = this.#holds.find(
        (h) => !h.claimed && h.matches({ method: c.req.method, path: url.pathname, query: url.searchParams }),
      );
      if (hold) hold.claimed = true;
      await next();
      if (hold) {
        hold.reached();
        await hold.released;
      }
    };
  }
}

function respond(c: Context, fault: Fault, defaultBody: (status: number) => unknown): Response {
  const status = fault.status ?? 500;
  const headers: Record<string, string> = { 'content-type': 'application/json', ...fault.headers };
  if (status === 429 && fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
  return c.body(JSON.stringify(fault.body ?? defaultBody(status)), status as 429, headers);
}
