import { describe, expect, it } from 'vitest';
import { noAuth } from './auth.ts';
import { ConnectorError, UpstreamError, UpstreamRateLimitError } from './errors.ts';
import { UpstreamHttpClient, type UpstreamRequest } from './http-client.ts';
import { failureReason, isRetryable } from './retry-decision.ts';

const FAST = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2, maxWaitMs: 5_000 };

/** A client whose upstream answers (or fails) as `answer` says; counts the calls, sleeps nothing. */
function clientWith(answer: (call: number) => Response | Error) {
  let calls = 0;
  const client = new UpstreamHttpClient({
    baseUrl: 'https://api.example.test/',
    auth: noAuth(),
    retry: FAST,
    sleep: async () => undefined,
    fetch: async () => {
      const outcome = answer(calls++);
      if (outcome instanceof Error) throw outcome;
      return outcome;
    },
  });
  return { client, calls: () => calls };
}

const reset = () =>
  new TypeError('fetch failed', { cause: Object.assign(new Error('socket'), { code: 'ECONNRESET' }) });
const refused = () =>
  new TypeError('fetch failed', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) });

describe('isRetryable: the one retry decision', () => {
  it('reads the verdict an upstream failure carries, defaulting from its code and status', () => {
    expect(isRetryable(new UpstreamError('upstream_error', 'x', 400, null))).toBe(false);
    expect(isRetryable(new UpstreamError('upstream_error', 'x', 422, null))).toBe(false);
    expect(isRetryable(new UpstreamError('upstream_error', 'x', 503, null))).toBe(true);
    expect(isRetryable(new UpstreamError('upstream_error', 'x', null, null))).toBe(true);
    expect(isRetryable(new UpstreamError('upstream_auth_failed', 'x', 401, null))).toBe(false);
    expect(isRetryable(new UpstreamError('upstream_not_found', 'x', 404, null))).toBe(false);
    // A kind's classify may say otherwise: a 400 some vendor uses for a transient condition.
    expect(isRetryable(new UpstreamError('upstream_error', 'x', 400, null, { retryable: true }))).toBe(true);
  });

  it('retries rate limits and infrastructure failures, never a request the caller must fix', () => {
    expect(isRetryable(new UpstreamRateLimitError('slow down', 3))).toBe(true);
    expect(isRetryable(new ConnectorError('invalid_params', 'bad'))).toBe(false);
    expect(isRetryable(new Error('ECONNREFUSED 127.0.0.1:5432'))).toBe(true);
  });

  it("failureReason carries the upstream's own words", () => {
    const error = new UpstreamError('upstream_error', 'the upstream answered 400', 400, '{"title":"bad filter"}');
    expect(failureReason(error)).toBe('the upstream answered 400: {"title":"bad filter"}');
  });
});

describe('the HTTP client acts on the same decision', () => {
  const write: UpstreamRequest = { method: 'POST', path: 'files', json: { name: 'a' } };

  it('marks the failure it throws with the verdict of the answer', async () => {
    const { client } = clientWith(() => new Response('{"title":"no"}', { status: 422 }));
    const error = (await client.json({ path: 'x' }).catch((e: unknown) => e)) as UpstreamError;
    expect(error.retryable).toBe(false);
    const transient = clientWith(() => new Response('', { status: 502 }));
    const failure = (await transient.client.json({ path: 'x' }).catch((e: unknown) => e)) as UpstreamError;
    expect(failure.retryable).toBe(true);
    expect(transient.calls()).toBe(3);
  });

  it('retries a read after a connection reset', async () => {
    const { client, calls } = clientWith((n) => (n === 0 ? reset() : new Response('{}', { status: 200 })));
    expect(await client.json({ path: 'x' })).toEqual({});
    expect(calls()).toBe(2);
  });

  it('does not send a write again after a 5xx or a reset: it may have been applied', async () => {
    for (const answer of [() => new Response('', { status: 503 }), reset]) {
      const { client, calls } = clientWith(answer);
      const error = (await client.json(write).catch((e: unknown) => e)) as UpstreamError;
      expect(error.retryable).toBe(true);
      expect(calls()).toBe(1);
    }
  });

  it('sends a write again after a 429 or a refused connection (nothing was applied), or when it is idempotent', async () => {
    const limited = clientWith((n) => (n === 0 ? new Response('', { status: 429 }) : new Response('{}')));
    await limited.client.json(write);
    expect(limited.calls()).toBe(2);
    const down = clientWith((n) => (n === 0 ? refused() : new Response('{}')));
    await down.client.json(write);
    expect(down.calls()).toBe(2);
    const keyed = clientWith((n) => (n === 0 ? new Response('', { status: 503 }) : new Response('{}')));
    await keyed.client.json({ ...write, idempotent: true });
    expect(keyed.calls()).toBe(2);
  });
});
