import { createLogger } from '@conduit/observability';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { ApiEnv } from '../deps.ts';
import { requestId } from './request-id.ts';

function app(lines: string[] = []) {
  const logger = createLogger({ level: 'info', base: {}, write: (line) => lines.push(line) });
  return new Hono<ApiEnv>()
    .use('*', requestId(logger))
    .get('/json', (c) => c.json({ ok: true }))
    .get('/own', () => new Response('bytes', { headers: { 'content-type': 'application/octet-stream' } }));
}

describe('requestId', () => {
  it("answers with a fresh id, or the caller's well-formed one, on a JSON answer", async () => {
    const fresh = await app().request('/json');
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await fresh.json()).toEqual({ ok: true });
    const echoed = await app().request('/json', { headers: { 'x-request-id': 'trace-1' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-1');
    const refused = await app().request('/json', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(refused.headers.get('x-request-id')).not.toBe('bad id with spaces');
  });

  it('also on a Response the handler built itself, whose body is left as it was', async () => {
    const response = await app().request('/own', { headers: { 'x-request-id': 'trace-2' } });
    expect(response.headers.get('x-request-id')).toBe('trace-2');
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(await response.text()).toBe('bytes');
  });

  it('logs the request once, with its id and status', async () => {
    const lines: string[] = [];
    const response = await app(lines).request('/json', { headers: { 'x-request-id': 'trace-3' } });
    expect(response.status).toBe(200);
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ message: 'request', request_id: 'trace-3', status: 200, path: '/json' }),
    ]);
  });
});
