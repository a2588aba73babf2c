import { networkInterfaces } from 'node:os';
import { buildApp } from '@conduit/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'origin-test', version: '1' } },
};

/** Headers on every answer, the MCP Origin check, and the worker's metrics on loopback. */
describe('the security surface of every answer', () => {
  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform({ env: { MCP_ALLOWED_ORIGINS: 'https://agent.example.com' } });
  });
  afterAll(() => platform?.close());

  const mcp = (headers: Record<string, string>) =>
    platform.call('POST', '/mcp', INITIALIZE, { accept: 'application/json, text/event-stream', ...headers });

  it('sends nosniff and frame protection on answers of every kind, and no HSTS over http', async () => {
    const answers = {
      health: await fetch(`${platform.url}/healthz`),
      docs: await fetch(`${platform.url}/docs`),
      openapi: await fetch(`${platform.url}/openapi.json`),
      unauthorized: await fetch(`${platform.url}/api/v1/integrations/connectors/x`),
      noRoute: await fetch(`${platform.url}/nowhere`),
      token: await fetch(`${platform.url}/api/v1/oauth/token`, { method: 'POST', body: '{}' }),
      connectorMissing: await platform.call(
        'GET',
        '/api/v1/integrations/connectors/00000000-0000-0000-0000-000000000000',
      ),
      mcp: await mcp({}),
    };
    expect(answers.mcp.status).toBe(200);
    for (const [name, answer] of Object.entries(answers)) {
      expect(answer.headers.get('x-content-type-options'), name).toBe('nosniff');
      expect(answer.headers.get('x-frame-options'), name).toBe('DENY');
      expect(answer.headers.get('content-security-policy'), name).toContain("frame-ancestors 'none'");
      expect(answer.headers.get('strict-transport-security'), name).toBeNull();
      await answer.body?.cancel();
    }
  });

  it('adds HSTS when PUBLIC_BASE_URL is https', async () => {
    const env = { ...platform.api.deps.env, PUBLIC_BASE_URL: 'https://conduit.example.com' };
    const app = buildApp({ ...platform.api.deps, env });
    for (const path of ['/healthz', '/docs', '/nowhere']) {
      const answer = await app.request(path);
      expect(answer.headers.get('strict-transport-security'), path).toBe('max-age=31536000; includeSubDomains');
      expect(answer.headers.get('x-content-type-options'), path).toBe('nosniff');
    }
  });

  it('POST /mcp refuses a foreign Origin with 403, and takes its own, a listed one, or none', async () => {
    const foreign = await mcp({ origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    const problem = (await foreign.json()) as { code: string; errors: { path: string }[] };
    expect(problem.code).toBe('forbidden');
    expect(problem.errors[0]?.path).toBe('/headers/origin');
    // "null" is what a sandboxed frame or a file:// page sends.
    expect((await mcp({ origin: 'null' })).status).toBe(403);
    // Refused before the token is even looked at.
    const anonymous = await fetch(`${platform.url}/mcp`, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify(INITIALIZE),
    });
    expect(anonymous.status).toBe(403);

    const listed = await mcp({ origin: 'https://agent.example.com' });
    expect(listed.status).toBe(200);
    await listed.body?.cancel();

    // The API's own public origin (PUBLIC_BASE_URL), never the Host the request names (DNS rebinding sets both).
    const env = { ...platform.api.deps.env, PUBLIC_BASE_URL: 'https://conduit.example.com/' };
    const app = buildApp({ ...platform.api.deps, env });
    const own = await app.request('/mcp', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await platform.token()}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        origin: 'https://conduit.example.com',
      },
      body: JSON.stringify(INITIALIZE),
    });
    expect(own.status).toBe(200);
    const rebound = await fetch(`${platform.url}/mcp`, {
      method: 'POST',
      headers: { origin: platform.url, 'content-type': 'application/json' },
      body: JSON.stringify(INITIALIZE),
    });
    expect(rebound.status).toBe(403);
  });

  it("binds the worker's /metrics to loopback unless WORKER_METRICS_HOST says otherwise", async () => {
    const server = platform.worker!.metricsServer;
    expect(server.host).toBe('127.0.0.1');
    expect((await fetch(`http://127.0.0.1:${server.port}/metrics`)).status).toBe(200);
    const external = Object.values(networkInterfaces())
      .flat()
      .find((address) => address && address.family === 'IPv4' && !address.internal)?.address;
    if (external) {
      await expect(fetch(`http://${external}:${server.port}/metrics`)).rejects.toThrow();
    }
  });
});
