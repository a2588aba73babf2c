import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { ApiEnv } from '../deps.ts';
import { problemResponse } from '../problem.ts';
import { mcpOrigin, parseAllowedOrigins } from './mcp-origin.ts';

function app() {
  let reached = 0;
  const routes = new Hono<ApiEnv>()
    .onError((error, c) => problemResponse(c, error))
    .use('*', mcpOrigin({ allowed: ['https://agent.example.com'], publicBaseUrl: 'https://api.example.com/' }))
    .post('/mcp', (c) => {
      reached++;
      return c.json({ ok: true });
    });
  return { routes, reached: () => reached };
}

describe('mcpOrigin', () => {
  it('lets the API’s own origin, a listed one and a request without Origin (an agent) through', async () => {
    const { routes, reached } = app();
    for (const headers of [{ origin: 'https://api.example.com' }, { origin: 'https://agent.example.com' }, {}]) {
      expect((await routes.request('/mcp', { method: 'POST', headers })).status).toBe(200);
    }
    expect(reached()).toBe(3);
  });

  it('refuses another site’s page with 403 forbidden at /headers/origin, before the server sees it', async () => {
    const { routes, reached } = app();
    for (const origin of ['https://evil.example', 'http://api.example.com', 'null']) {
      const response = await routes.request('/mcp', { method: 'POST', headers: { origin } });
      expect(response.status, origin).toBe(403);
      expect(await response.json()).toMatchObject({ code: 'forbidden', errors: [{ path: '/headers/origin' }] });
    }
    expect(reached()).toBe(0);
  });
});

describe('parseAllowedOrigins', () => {
  it('reads comma-separated origins, and refuses a value with a path when it is parsed', () => {
    expect(parseAllowedOrigins(' https://a.example, http://b.example:8080/ ,')).toEqual([
      'https://a.example',
      'http://b.example:8080',
    ]);
    expect(() => parseAllowedOrigins('https://a.example/path')).toThrow(/is not an origin/);
  });
});
