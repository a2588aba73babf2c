import { describe, expect, it } from 'vitest';
import { noAuth } from './auth.ts';
import { type Classify, classifyWithWait, defaultClassify, waitInBodyMs } from './classify.ts';
import { UpstreamError, UpstreamRateLimitError } from './errors.ts';
import { UpstreamHttpClient } from './http-client.ts';

const BASE = 'https://api.example.test/';
const FAST = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2, maxWaitMs: 5_000 };

/** A client whose upstream answers the queued responses in order; sleeps are recorded, not slept. */
function clientAnswering(responses: (() => Response)[], classify?: Classify) {
  const waits: number[] = [];
  let calls = 0;
  const client = new UpstreamHttpClient({
    baseUrl: BASE,
    auth: noAuth(),
    retry: FAST,
    ...(classify ? { classify } : {}),
    sleep: async (ms) => {
      waits.push(ms);
    },
    fetch: async () => {
      const next = responses[Math.min(calls, responses.length - 1)]!;
      calls++;
      return next();
    },
  });
  return { client, waits, calls: () => calls };
}

const status =
  (code: number, body = '', headers: Record<string, string> = {}) =>
  () =>
    new Response(body, { status: code, headers });

describe('the HTTP client retry loop', () => {
  it('retries 5xx and honours Retry-After, then succeeds', async () => {
    const { client, waits, calls } = clientAnswering([
      status(503, '', { 'retry-after': '2' }),
      status(200, '{"ok":true}'),
    ]);
    expect(await client.json({ path: 'x' })).toEqual({ ok: true });
    expect(calls()).toBe(2);
    expect(waits).toEqual([2000]);
  });

  it('turns a 429 whose wait is longer than it may sleep into a rate-limit error for the caller', async () => {
    const { client, calls } = clientAnswering([status(429, '', { 'retry-after': '60' })]);
    const error = await client.json({ path: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamRateLimitError);
    expect((error as UpstreamRateLimitError).retryAfterSeconds).toBe(60);
    expect(calls()).toBe(1);
  });

  it('does not retry a permanent 4xx and maps 404 to upstream_not_found', async () => {
    const { client, calls } = clientAnswering([status(404, 'gone')]);
    const error = (await client.json({ path: 'x' }).catch((e: unknown) => e)) as UpstreamError;
    expect(error.code).toBe('upstream_not_found');
    expect(error.upstreamBody).toBe('gone');
    expect(calls()).toBe(1);
  });

  it("lets a kind's classify make a 403 a rate limit (retried) or a permanent error of its own", async () => {
    const classify: Classify = (response, excerpt) => {
      if (response.status !== 403) return undefined;
      if (excerpt.includes('slow down')) return { type: 'rate_limited' };
      return { type: 'permanent', error: new UpstreamError('upstream_error', 'not this file', 403, excerpt) };
    };
    const limited = clientAnswering([status(403, 'slow down'), status(200, '{}')], classify);
    expect(await limited.client.json({ path: 'x' })).toEqual({});
    expect(limited.calls()).toBe(2);
    const refused = clientAnswering([status(403, 'nope')], classify);
    await expect(refused.client.json({ path: 'x' })).rejects.toThrow('not this file');
    expect(refused.calls()).toBe(1);
  });

  it('reports an exhausted rate limit as a rate-limit error and exhausted 5xx as upstream_error', async () => {
    const limited = clientAnswering([status(429)]);
    await expect(limited.client.json({ path: 'x' })).rejects.toBeInstanceOf(UpstreamRateLimitError);
    expect(limited.calls()).toBe(FAST.maxAttempts);
    const failing = clientAnswering([status(502)]);
    const error = (await failing.client.json({ path: 'x' }).catch((e: unknown) => e)) as UpstreamError;
    expect(error.code).toBe('upstream_error');
    expect(failing.calls()).toBe(FAST.maxAttempts);
  });
});

describe('classify helpers', () => {
  it('defaultClassify: 401/403 auth, 429 rate limited, 5xx retryable, other 4xx permanent', () => {
    expect(defaultClassify(new Response('', { status: 401 })).type).toBe('auth');
    expect(defaultClassify(new Response('', { status: 403 })).type).toBe('auth');
    expect(defaultClassify(new Response('', { status: 429, headers: { 'retry-after': '3' } }))).toEqual({
      type: 'rate_limited',
      waitMs: 3000,
    });
    expect(defaultClassify(new Response('', { status: 500 })).type).toBe('retryable');
    expect(defaultClassify(new Response('', { status: 422 })).type).toBe('permanent');
  });

  it('classifyWithWait takes the wait from the body only when no Retry-After says it', () => {
    const classify = classifyWithWait((_, excerpt) => waitInBodyMs(excerpt, /"retry_after":(\d+)/));
    expect(classify(new Response('', { status: 429 }), '{"retry_after":7}')).toEqual({
      type: 'rate_limited',
      waitMs: 7000,
    });
    expect(classify(new Response('', { status: 429, headers: { 'retry-after': '1' } }), '{"retry_after":7}')).toEqual({
      type: 'rate_limited',
      waitMs: 1000,
    });
  });
});
