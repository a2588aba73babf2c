import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Conduit } from './conduit.ts';
import { ConduitProblem, retryAfterSeconds } from './problem.ts';

/**
 * Retry and token behaviour against a small HTTP server that answers what each test scripts (the platform's own
 * limiter waits up to a minute; the end-to-end tests cover the real API).
 */
type Handler = (req: IncomingMessage, res: ServerResponse, call: number) => void;

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A server that grants tokens and passes every other request to `handler`, with its number (1, 2, ...). */
async function serve(handler: Handler): Promise<{ url: string; seen: string[]; calls: () => number }> {
  const seen: string[] = [];
  let calls = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push(`${req.method} ${req.url}`);
      if (req.url === '/api/v1/oauth/token') {
        return json(res, { access_token: `token-${seen.length}`, token_type: 'Bearer', expires_in: 3600 });
      }
      handler(req, res, ++calls);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () => new Promise((resolve) => server.close(() => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, calls: () => calls };
}

const json = (res: ServerResponse, body: unknown) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
};

const problem = (res: ServerResponse, status: number, code: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/problem+json', ...headers });
  res.end(JSON.stringify({ type: 'about:blank', title: 'x', status, detail: code, code }));
};

describe('Conduit transport', () => {
  it('retries a safe call on 429 after Retry-After seconds, then returns the answer', async () => {
    const { url, calls } = await serve((_req, res, call) => {
      if (call === 1) return problem(res, 429, 'rate_limited', { 'retry-after': '1' });
      json(res, { connector_id: 'c1' });
    });
    const conduit = new Conduit({ baseUrl: url, clientId: 'a', clientSecret: 'b' });
    const started = Date.now();
    await expect(conduit.connectors.get('c1')).resolves.toMatchObject({ connector_id: 'c1' });
    expect(calls()).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('honours Retry-After as an HTTP date on 503', async () => {
    const { url, calls } = await serve((_req, res, call) => {
      if (call === 1) {
        return problem(res, 503, 'search_unavailable', { 'retry-after': new Date(Date.now() + 1000).toUTCString() });
      }
      json(res, { data: [], meta: { has_more: false, cursor: null, took_ms: 1 } });
    });
    const orb = new Conduit({ baseUrl: url, clientId: 'a', clientSecret: 'b' }).connector('c1', 'Orb');
    await expect(orb.search('invoices', { query: {} })).resolves.toMatchObject({ data: [] });
    expect(calls()).toBe(2);
  });

  it('asks a repeated search and SQL query with If-None-Match and reuses its answer on 304', async () => {
    const asked: (string | undefined)[] = [];
    const { url } = await serve((req, res) => {
      const tag = req.url?.endsWith('/sql') ? 'W/"sql"' : 'W/"search"';
      asked.push(req.headers['if-none-match']);
      if (req.headers['if-none-match'] === tag) {
        res.writeHead(304, { etag: tag });
        return res.end();
      }
      res.setHeader('etag', tag);
      json(res, { data: [{ id: 'a' }], meta: { has_more: false, cursor: null, took_ms: 1, cache: 'miss' } });
    });
    const orb = new Conduit({ baseUrl: url, clientId: 'a', clientSecret: 'b' }).connector('c1', 'Orb');
    const first = await orb.search('invoices', { query: {} });
    const again = await orb.search('invoices', { query: {} });
    expect(again).toEqual(first);
    expect(again).not.toBe(first);
    await orb.search('invoices', { query: {}, limit: 1 });
    await orb.sql('SELECT id FROM invoices');
    await expect(orb.sql('SELECT id FROM invoices')).resolves.toMatchObject({ data: [{ id: 'a' }] });
    expect(asked).toEqual([undefined, 'W/"search"', undefined, undefined, 'W/"sql"']);
  });

  it('never retries an unsafe call (create, or a live create action): the 429 is thrown as a ConduitProblem', async () => {
    const { url, calls } = await serve((_req, res) => problem(res, 429, 'rate_limited', { 'retry-after': '0' }));
    const conduit = new Conduit({ baseUrl: url, clientId: 'a', clientSecret: 'b' });
    const drive = conduit.connector('c1', 'Google-Drive');
    const error = await drive.execute({ entity: 'files', action: 'create', params: { name: 'x' } }).catch((e) => e);
    expect(error).toBeInstanceOf(ConduitProblem);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', retryAfterSeconds: 0 });
    expect(calls()).toBe(1);
  });

  it('gives up after maxRetries and throws the last problem', async () => {
    const { url, calls } = await serve((_req, res) => problem(res, 503, 'search_unavailable', { 'retry-after': '0' }));
    const conduit = new Conduit({ baseUrl: url, clientId: 'a', clientSecret: 'b', maxRetries: 2 });
    await expect(conduit.connectors.get('c1')).rejects.toMatchObject({ status: 503, code: 'search_unavailable' });
    expect(calls()).toBe(3);
  });

  it('obtains one token for concurrent calls and a new one after a 401', async () => {
    const { url, seen } = await serve((req, res, call) => {
      if (call === 3) return problem(res, 401, 'unauthorized');
      json(res, { connector_id: 'c1', auth: req.headers.authorization });
    });
    const conduit = new Conduit({ baseUrl: url, clientId: 'a', clientSecret: 'b' });
    await Promise.all([conduit.connectors.get('c1'), conduit.connectors.get('c1')]);
    expect(seen.filter((s) => s.includes('/oauth/token'))).toHaveLength(1);
    const after = (await conduit.connectors.get('c1')) as unknown as { auth: string };
    expect(seen.filter((s) => s.includes('/oauth/token'))).toHaveLength(2);
    expect(after.auth).not.toBe('Bearer token-1');
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterSeconds('7', now)).toBe(7);
    expect(retryAfterSeconds('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5);
    expect(retryAfterSeconds('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
    expect(retryAfterSeconds(null, now)).toBeUndefined();
  });
});
