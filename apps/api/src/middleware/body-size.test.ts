import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { ApiEnv } from '../deps.ts';
import { problemResponse } from '../problem.ts';
import { bodySize } from './body-size.ts';

/** An app whose handler records the bodies it read: a refused request must never reach it. */
function app() {
  const read: string[] = [];
  const routes = new Hono<ApiEnv>()
    .onError((error, c) => problemResponse(c, error))
    .use('*', bodySize({ maxBytes: (path) => (path === '/big' ? 100 : 10) }))
    .post('/*', async (c) => {
      read.push(await c.req.text());
      return c.json({ ok: true });
    });
  return { routes, read };
}

describe('bodySize', () => {
  it('lets a body within the limit of its path through', async () => {
    const { routes, read } = app();
    expect((await routes.request('/small', { method: 'POST', body: '0123456789' })).status).toBe(200);
    expect((await routes.request('/big', { method: 'POST', body: 'x'.repeat(100) })).status).toBe(200);
    expect(read).toEqual(['0123456789', 'x'.repeat(100)]);
  });

  it('refuses a declared Content-Length over the limit with 413 payload_too_large before the handler runs', async () => {
    const { routes, read } = app();
    const response = await routes.request('/small', {
      method: 'POST',
      body: 'x'.repeat(11),
      headers: { 'content-length': '11' },
    });
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await response.json()).toMatchObject({ status: 413, code: 'payload_too_large' });
    expect(read).toEqual([]);
  });

  it('counts a chunked body (no Content-Length) as it arrives, and refuses it past the limit', async () => {
    const { routes, read } = app();
    const chunks = (text: string) =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const part of text.match(/.{1,4}/g) ?? []) controller.enqueue(new TextEncoder().encode(part));
          controller.close();
        },
      });
    const send = (text: string) =>
      routes.request('/small', {
        method: 'POST',
        body: chunks(text),
        headers: { 'transfer-encoding': 'chunked' },
        duplex: 'half',
      } as RequestInit);
    expect((await send('x'.repeat(11))).status).toBe(413);
    expect(read).toEqual([]);
    expect((await send('x'.repeat(10))).status).toBe(200);
    expect(read).toEqual(['x'.repeat(10)]);
  });

  it('passes a request without a body', async () => {
    const { routes } = app();
    expect((await routes.request('/small', { method: 'POST' })).status).toBe(200);
  });
});
