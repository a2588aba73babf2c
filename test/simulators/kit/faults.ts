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

/**
 * Faults on demand, for tests (`sim.faults.add(...)`) and by HTTP (`POST /__sim/faults`), plus a request log.
 * Every simulator mounts it first, so 429 storms and 5xx bursts look like the real vendor's.
 */
export class FaultInjector {
  readonly #faults: Fault[] = [];
  readonly requests: { method: string; path: string; query: string; at: number }[] = [];
  /** While set, every request waits here (after being logged) until `release()`. */
  #gate: { promise: Promise<void>; open: () => void } | undefined;
  #held = 0;

  /** Holds every request from now on until `release()`, so a test controls when the upstream answers. */
  hold(): void {
    if (this.#gate) return;
    let open: () => void = () => undefined;
    const promise = new Promise<void>((resolve) => {
      open = resolve;
    });
    this.#gate = { promise, open };
  }

  /** Lets every held request (and the ones after) through. */
  release(): void {
    this.#gate?.open();
    this.#gate = undefined;
  }

  /** Requests waiting at the hold now. */
  get held(): number {
    return this.#held;
  }

  add(fault: Fault): void {
    this.#faults.push({ ...fault });
  }

  clear(): void {
    this.#faults.length = 0;
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
      await next();
    };
  }
}

function respond(c: Context, fault: Fault, defaultBody: (status: number) => unknown): Response {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...fault.headers };
  if (fault.status === 429 && fault.retryAfterSeconds !== undefined)
    headers['retry-after'] = String(fault.retryAfterSeconds);
  return c.body(JSON.stringify(fault.body ?? defaultBody(fault.status)), fault.status as 429, headers);
}
