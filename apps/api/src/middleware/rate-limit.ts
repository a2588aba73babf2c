import type { RedisClient } from '@conduit/queues';
import type { MiddlewareHandler } from 'hono';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
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

/**
 * A sliding-window counter, as rate-limiter-flexible's store script (`customIncrTtlLuaScript`: same arguments,
 * same {consumed, ms} answer as its fixed-window script). The key holds this window's count and the previous
 * one's; the previous window counts in proportion to how much of it still lies within the last `window`
 * seconds, so no burst of 2x the limit fits across a window edge. A refused request is not counted. Redis's
 * clock is the only clock, so every API instance agrees.
 * KEYS[1] key; ARGV[1] points to consume, ARGV[2] window seconds, ARGV[3] limit.
 * Answers {consumed, ms}: consumed > limit means refused and ms is the wait until it would fit; otherwise ms
 * is the time to the end of the current window.
 */
export const SLIDING_WINDOW_SCRIPT = `
local now = redis.call('TIME')
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local points = tonumber(ARGV[1])
local windowMs = tonumber(ARGV[2]) * 1000
local limit = tonumber(ARGV[3])
local window = math.floor(nowMs / windowMs)
local state = redis.call('HMGET', KEYS[1], 'w', 'c', 'p')
local current = tonumber(state[2]) or 0
local previous = tonumber(state[3]) or 0
local stored = tonumber(state[1])
if stored == nil or stored < window - 1 then
  current, previous = 0, 0
elseif stored == window - 1 then
  current, previous = 0, current
end
local elapsed = nowMs - window * windowMs
local estimate = previous * (windowMs - elapsed) / windowMs + current
if estimate + points > limit then
  local wait
  local room = limit - points - current
  if previous > 0 and room >= 0 then
    wait = (windowMs - elapsed) - room * windowMs / previous
  else
    wait = (windowMs - elapsed) + windowMs * (1 - (limit - points) / math.max(current, 1))
  end
  return {limit + points, math.max(1, math.ceil(wait))}
end
current = current + points
redis.call('HSET', KEYS[1], 'w', window, 'c', current, 'p', previous)
redis.call('PEXPIRE', KEYS[1], 2 * windowMs)
return {math.ceil(estimate + points), windowMs - elapsed}
`;

/** The shared budget: SLIDING_WINDOW_SCRIPT in Redis through rate-limiter-flexible, all points or none. */
export function redisBudget(options: RateLimitOptions): ConsumeShared {
  if (options.limit < 1 || options.windowSeconds < 1)
    throw new Error('rateLimit: limit and windowSeconds must be >= 1');
  const limiter = new RateLimiterRedis({
    storeClient: options.redis,
    keyPrefix: `${options.prefix}:ratelimit`,
    points: options.limit,
    duration: options.windowSeconds,
    customIncrTtlLuaScript: SLIDING_WINDOW_SCRIPT,
  });
  return async (clientId, points) => {
    try {
      const result = await limiter.consume(clientId, points);
      return { admitted: true, remaining: result.remainingPoints };
    } catch (rejection) {
      // The library rejects with a RateLimiterRes when over the limit, and with an Error when Redis fails.
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return { admitted: false, retryAfterMs: rejection.msBeforeNext };
    }
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
      throw new ApiError(429, 'rate_limited', 'too many requests for this client', [], seconds);
    }
    return withAnswerHeaders(c, next, headers);
  };
}
