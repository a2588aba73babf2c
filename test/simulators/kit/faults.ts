import type { Context, MiddlewareHandler } from 'hono';

/** A planned failure: the next `count` matching requests answer `status` (429 carries Retry-After). */
export interface Fault {
  status: number;
  count: number;
  retryAfterSeconds?: number;
  /** Only requests whose path contains this string. */
  pathIncludes?: string;
  /** A vendor-shaped body; defaults to a small JSON error. */
  body?: unknown;
  headers?: Record<string, string>;
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
 * Every simulator mounts it first, so 429 storms and 5xx bursts look like the real vendor's.
 */
export class FaultInjector {
  readonly #faults: Fault[] = [];
  readonly #holds: PendingHold[] = [];
  readonly requests: { method: string; path: string; query: string; at: number }[] = [];
  /** While set, every request waits here (after being logged) until `releaseAll()`. */
  #gate: { promise: Promise<void>; open: () => void } | undefined;
  #held = 0;

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
    return this.#held;
  }

  add(fault: Fault): void {
    this.#faults.push({ ...fault });
  }

  clear(): void {
    this.#faults.length = 0;
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

  middleware(defaultBody: (status: number) => unknown): MiddlewareHandler {
    return async (c, next) => {
      const url = new URL(c.req.url);
      if (url.pathname === '/__sim/faults' && c.req.method === 'POST') {
        this.add((await c.req.json()) as Fault);
        return c.json({ ok: true });
      }
      this.requests.push({ method: c.req.method, path: url.pathname, query: url.search, at: Date.now() });
      const fault = this.#faults.find((f) => f.count > 0 && (!f.pathIncludes || url.pathname.includes(f.pathIncludes)));
      if (fault) {
        fault.count--;
        return respond(c, fault, defaultBody);
      }
      if (this.#gate) {
        this.#held++;
        await this.#gate.promise;
        this.#held--;
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
  const headers: Record<string, string> = { 'content-type': 'application/json', ...fault.headers };
  if (fault.status === 429 && fault.retryAfterSeconds !== undefined)
    headers['retry-after'] = String(fault.retryAfterSeconds);
  return c.body(JSON.stringify(fault.body ?? defaultBody(fault.status)), fault.status as 429, headers);
}
