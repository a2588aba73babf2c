import type { MiddlewareHandler } from 'hono';

/**
 * An upstream that enforces a request rate, as a vendor's token bucket does: `perSecond` tokens refilled every
 * second, a bucket of one second's worth; a request finding it empty is answered 429 with Retry-After. `answered`
 * counts what it let through and what it refused, for benchmarks.
 */
export class UpstreamRateLimit {
  readonly perSecond: number;
  #tokens: number;
  #at = performance.now();
  accepted = 0;
  refused = 0;

  constructor(perSecond: number) {
    this.perSecond = perSecond;
    this.#tokens = perSecond;
  }

  middleware(body: () => unknown): MiddlewareHandler {
    return async (c, next) => {
      const now = performance.now();
      this.#tokens = Math.min(this.perSecond, this.#tokens + ((now - this.#at) / 1000) * this.perSecond);
      this.#at = now;
      if (this.#tokens < 1) {
        this.refused++;
        const waitSeconds = Math.max(1, Math.ceil((1 - this.#tokens) / this.perSecond));
        return c.json(body(), 429, { 'retry-after': String(waitSeconds) });
      }
      this.#tokens -= 1;
      this.accepted++;
      await next();
    };
  }
}
