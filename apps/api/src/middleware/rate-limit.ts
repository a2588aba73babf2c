import type { MiddlewareHandler } from 'hono';
import type { Redis } from 'ioredis';
import type { ApiEnv } from '../deps.ts';
import { ApiError } from '../problem.ts';

export interface RateLimitOptions {
  readonly redis: Redis;
  readonly prefix: string;
  /** Requests per client per window. */
  readonly limit: number;
  readonly windowSeconds: number;
}

/**
 * Per-client fixed-window limit kept in Redis, so every API instance shares it. Over the limit: 429 with
 * Retry-After (seconds to the end of the window). Runs after authentication.
 */
export function rateLimit(options: RateLimitOptions): MiddlewareHandler<ApiEnv> {
  if (options.limit < 1 || options.windowSeconds < 1)
    throw new Error('rateLimit: limit and windowSeconds must be >= 1');
  return async function rateLimitMiddleware(c, next) {
    const nowSeconds = Math.floor(Date.now() / 1000);
    const window = Math.floor(nowSeconds / options.windowSeconds);
    const key = `${options.prefix}:ratelimit:${c.get('auth').clientId}:${window}`;
    const [[, count]] = (await options.redis
      .multi()
      .incr(key)
      .expire(key, options.windowSeconds * 2)
      .exec()) as [[unknown, number], [unknown, number]];
    const remaining = Math.max(0, options.limit - count);
    c.header('ratelimit-limit', String(options.limit));
    c.header('ratelimit-remaining', String(remaining));
    if (count > options.limit) {
      const retryAfter = (window + 1) * options.windowSeconds - nowSeconds;
      throw new ApiError(429, 'rate_limited', 'too many requests for this client', [], Math.max(1, retryAfter));
    }
    await next();
  };
}
