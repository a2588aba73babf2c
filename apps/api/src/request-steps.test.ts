import { mkdtempSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { requestStep, traceRequestSteps } from './request-steps.ts';

let release: () => void = () => undefined;
const app = new Hono()
  .get('/alone', (c) => {
    requestStep('handler');
    requestStep('handler');
    requestStep('page built');
    return c.json({ ok: true });
  })
  .get('/held', async (c) => {
    requestStep('handler');
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    return c.json({ ok: true });
  });
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
const file = join(mkdtempSync(join(tmpdir(), 'request-steps-')), 'steps.ndjson');
const flush = traceRequestSteps(server, file);
const url = async (path: string) => {
  if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
};
const lines = () => {
  flush();
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id: string | null; steps: [string, number][]; promises: number });
};

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('traceRequestSteps', () => {
  it("writes a request answered alone as its id and its steps in order, each name's first mark only", async () => {
    const response = await fetch(await url('/alone'), { headers: { 'x-request-id': 'eq-id.1' } });
    expect(await response.json()).toEqual({ ok: true });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [line] = lines();
    expect(line?.id).toBe('eq-id.1');
    expect(line?.steps.map(([step]) => step)).toEqual(['handler', 'page built', 'answer written', 'finish', 'closed']);
    expect(line?.promises).toBeGreaterThan(0);
    const times = line!.steps.map(([, at]) => at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('writes nothing for requests that overlapped another', async () => {
    const before = lines().length;
    const held = fetch(await url('/held'), { headers: { 'x-request-id': 'held.1' } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const alongside = await fetch(await url('/alone'), { headers: { 'x-request-id': 'alongside.1' } });
    expect(alongside.status).toBe(200);
    release();
    expect((await held).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lines().slice(before)).toEqual([]);
  });
});
