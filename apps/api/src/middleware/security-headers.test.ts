import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { ApiEnv } from '../deps.ts';
import { ApiError, problemResponse } from '../problem.ts';
import { securityHeaders } from './security-headers.ts';

const EVERY_ANSWER = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
};

function app(publicBaseUrl: string) {
  return new Hono<ApiEnv>()
    .onError((error, c) => problemResponse(c, error))
    .use('*', securityHeaders({ publicBaseUrl }))
    .get('/json', (c) => c.json({ ok: true }))
    .get('/problem', () => {
      throw new ApiError(404, 'not_found', 'nothing here');
    })
    .get('/own', () => new Response('bytes', { headers: { 'content-type': 'application/octet-stream' } }))
    .get('/page', (c) => c.html('<p>console</p>', 200, { 'content-security-policy': "default-src 'self'" }));
}

describe('securityHeaders', () => {
  it('puts its headers on a JSON answer, a problem and a Response the handler built itself', async () => {
    const routes = app('http://localhost:8080');
    for (const path of ['/json', '/problem', '/own']) {
      const response = await routes.request(path);
      for (const [name, value] of Object.entries(EVERY_ANSWER)) expect(response.headers.get(name), path).toBe(value);
    }
  });

  it('sends HSTS only behind an https public URL', async () => {
    const https = await app('https://api.example.com').request('/json');
    expect(https.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    const http = await app('http://localhost:8080').request('/json');
    expect(http.headers.get('strict-transport-security')).toBeNull();
  });

  it('leaves a route its own Content-Security-Policy', async () => {
    const response = await app('http://localhost:8080').request('/page');
    expect(response.headers.get('content-security-policy')).toBe("default-src 'self'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('fails when built with a public URL that is not a URL, not per request', () => {
    expect(() => securityHeaders({ publicBaseUrl: 'not a url' })).toThrow();
  });
});
