import { readFileSync } from 'node:fs';
import type { RedisClient } from '@conduit/queues';
import type { MiddlewareHandler } from 'hono';
import type { ApiEnv } from '../deps.ts';
import { ApiError } from '../problem.ts';
import { withAnswerHeaders } from './answer-headers.ts';
import { type ConsumeShared, RateLimitLeases } from './rate-limit-leases.ts';

export interface RateLimitOptions {
  readonly redis: RedisClient;
  readonly prefix: string;
  /** Requests per client per window. */
  readonly limit: number;
  readonly windowSeconds: number;
  /** Called for each refused request (e.g. to count it): refusals are counted, never audited. */
  readonly onRefused?: (path: string) => void;
}

/** The client's counter script on the client (ioredis `defineCommand`: EVALSHA, sent once per connection). */
interface SlidingWindowCommand {
  conduitSlidingWindow(key: string, points: string, windowSeconds: string, limit: string): Promise<[number, number]>;
}

/**
 * The shared budget: `lua/sliding-window-1.lua` in Redis, all points or none, for every API instance at once.
 */
export function redisBudget(options: RateLimitOptions): ConsumeShared {
  if (options.limit < 1 || options.windowSeconds < 1)
    throw new Error('rateLimit: limit and windowSeconds must be >= 1');
  const lua = readFileSync(new URL('./lua/sliding-window-1.lua', import.meta.url), 'utf8');
  options.redis.defineCommand('conduitSlidingWindow', { numberOfKeys: 1, lua });
  const redis = options.redis as RedisClient & SlidingWindowCommand;
  const prefix = `${options.prefix}:ratelimit`;
  const [limit, windowSeconds] = [String(options.limit), String(options.windowSeconds)];
  return async (clientId, points) => {
    const [consumed, ms] = await redis.conduitSlidingWindow(
      `${prefix}:${clientId}`,
      String(points),
      windowSeconds,
      limit,
    );
    if (consumed > options.limit) return { admitted: false, retryAfterMs: ms };
    return { admitted: true, remaining: Math.max(0, options.limit - consumed) };
  };
}

/**
 * Per-client sliding-window limit shared by every API instance (redisBudget), spent through short leases
 * (rate-limit-leases.ts) so most requests skip the Redis round trip. Over the limit: 429 with Retry-After (seconds
 * until a request fits again). Runs after authentication and before the audit trail: a refused request did nothing,
 * and writing a row for each would let a flood of them grow the trail without bound (`onRefused` counts them).
 */
export function rateLimit(options: RateLimitOptions): MiddlewareHandler<ApiEnv> {
  const leases = new RateLimitLeases({ consume: redisBudget(options) });
  const limit = String(options.limit);
  return async function rateLimitMiddleware(c, next) {
    const admission = await leases.admit(c.get('auth').clientId);
    const headers = { 'ratelimit-limit': limit, 'ratelimit-remaining': String(admission.remaining) };
    if (!admission.admitted) {
      for (const [name, value] of Object.entries(headers)) c.header(name, value);
      options.onRefused?.(c.req.path);
      const seconds = Math.max(1, Math.ceil(admission.retryAfterMs / 1000));
      throw new ApiError(429, 'rate_limited', 'too many requests for this client', { retryAfterSeconds: seconds });
    }
    return withAnswerHeaders(c, next, headers);
  };
}
