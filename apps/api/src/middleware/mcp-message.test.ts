import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { ApiEnv } from '../deps.ts';
import { problemResponse } from '../problem.ts';
import { mcpMessage } from './mcp-message.ts';

/** The handler answers with the message the middleware parsed, and the body it reads itself afterwards. */
function app() {
  let reached = 0;
  const routes = new Hono<ApiEnv>()
    .onError((error, c) => problemResponse(c, error))
    .use('*', mcpMessage())
    .all('/mcp', async (c) => {
      reached++;
      return c.json({ message: c.get('mcpMessage') ?? null, body: await c.req.text() });
    });
  return { routes, reached: () => reached };
}

const post = (body: string) => ({ method: 'POST', body, headers: { 'content-type': 'application/json' } });

describe('mcpMessage', () => {
  it('parses one JSON-RPC message once, and leaves the body for the server to read', async () => {
    const { routes } = app();
    const text = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const response = await routes.request('/mcp', post(text));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ message: JSON.parse(text), body: text });
  });

  it('refuses a JSON-RPC batch with 400 invalid_request before the server sees it', async () => {
    const { routes, reached } = app();
    const response = await routes.request('/mcp', post('[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]'));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'invalid_request', errors: [{ path: '' }] });
    expect(reached()).toBe(0);
  });

  it('refuses JSON nested past the depth limit, before parsing it', async () => {
    const { routes, reached } = app();
    const response = await routes.request('/mcp', post(`${'['.repeat(10_000)}${']'.repeat(10_000)}`));
    expect(response.status).toBe(400);
    expect(reached()).toBe(0);
  });

  it('leaves malformed JSON and other methods to the MCP server', async () => {
    const { routes, reached } = app();
    expect(await (await routes.request('/mcp', post('{not json'))).json()).toEqual({
      message: null,
      body: '{not json',
    });
    expect((await routes.request('/mcp')).status).toBe(200);
    expect(reached()).toBe(2);
  });
});
