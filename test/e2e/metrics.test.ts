import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForEntity } from '../harness/connector-status.ts';
import { createConnector } from '../harness/create-connector.ts';
import { orbSettings, startOrbPlatform } from '../harness/orb-connector.ts';
import { closeInOrder, type TestPlatform } from '../harness/platform.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';

const METRICS_TOKEN = 'metrics-token-for-tests';
const EXECUTE_ROUTE = '/api/v1/integrations/connectors/:connector_id/execute';

/** Sum of the samples of `name` whose labels include every pair of `labels` (Prometheus text format). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  let found = false;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const pairs = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => pairs[k] === v)) {
      total += Number(match[3]);
      found = true;
    }
  }
  return found ? total : Number.NaN;
}

describe('GET /metrics on the API and on the worker’s own port', () => {
  let sim: SimulatorHandle;
  let platform: TestPlatform;
  let workerUrl: string;
  let connectorId: string;

  const scrapeApi = async () => {
    const response = await fetch(`${platform.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    return response.text();
  };
  const scrapeWorker = async () => {
    const response = await fetch(`${workerUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(response.status).toBe(200);
    return response.text();
  };

  beforeAll(async () => {
    ({ sim, platform } = await startOrbPlatform({ size: 25, env: { METRICS_TOKEN } }));
    const port = platform.worker?.metricsServer.port;
    if (!port) throw new Error('the worker metrics server did not bind');
    workerUrl = `http://127.0.0.1:${port}`;
  });

  afterAll(() => closeInOrder(platform, sim));

  it('requires the METRICS_TOKEN bearer on both ports when it is set', async () => {
    const api = await fetch(`${platform.url}/metrics`);
    expect(api.status).toBe(401);
    expect(api.headers.get('content-type')).toContain('application/problem+json');
    expect((await fetch(`${workerUrl}/metrics`)).status).toBe(401);
    const wrong = { authorization: 'Bearer nope' };
    expect((await fetch(`${platform.url}/metrics`, { headers: wrong })).status).toBe(401);
    expect((await fetch(`${workerUrl}/metrics`, { headers: wrong })).status).toBe(401);
  });

  it('exposes sync runs by outcome, records indexed, queue depth and per-entity lag, and they move', async () => {
    const before = await scrapeWorker();
    connectorId = await createConnector(platform, { customer_name: 'acme', name: 'metrics', ...orbSettings(sim) });

    expect(sample(before, 'conduit_sync_queue_jobs', { state: 'waiting' })).toBeGreaterThanOrEqual(0);
    expect(sample(before, 'conduit_sync_runs_total')).toBeNaN();
    expect(sample(before, 'conduit_records_indexed_total')).toBeNaN();
    const entities = ['customers', 'subscriptions', 'plans', 'invoices'];
    for (const entity of entities) await waitForEntity(platform, connectorId, entity, (s) => s.status === 'ready');

    const after = await scrapeWorker();
    for (const entity of entities) {
      expect(sample(after, 'conduit_sync_runs_total', { kind: 'Orb', entity, outcome: 'done' }), entity).toBe(1);
      expect(sample(after, 'conduit_records_indexed_total', { kind: 'Orb', entity }), entity).toBe(
        sim.expectedKeys(entity).length,
      );
      const lag = sample(after, 'conduit_sync_lag_seconds', { kind: 'Orb', entity });
      expect(lag, entity).toBeGreaterThanOrEqual(0);
      expect(lag, entity).toBeLessThan(120);
    }
    expect(sample(after, 'conduit_upstream_requests_total', { kind: 'Orb', status: '200' })).toBeGreaterThan(0);
    for (const state of ['waiting', 'active', 'delayed', 'failed']) {
      expect(Number.isFinite(sample(after, 'conduit_sync_queue_jobs', { state })), state).toBe(true);
    }

    // Lag grows with time since the last success (the gauge is computed at scrape time).
    await new Promise((r) => setTimeout(r, 1100));
    const later = await scrapeApi();
    expect(sample(later, 'conduit_sync_lag_seconds', { kind: 'Orb', entity: 'customers' })).toBeGreaterThan(
      sample(after, 'conduit_sync_lag_seconds', { kind: 'Orb', entity: 'customers' }),
    );
  });
  it('counts requests by route pattern and status, and upstream calls by kind and status (429 included)', async () => {
    const before = await scrapeApi();
    const executeCount = (text: string, status: string) =>
      sample(text, 'conduit_http_request_duration_seconds_count', { route: EXECUTE_ROUTE, status }) || 0;
    const upstream = (text: string, status: string) =>
      sample(text, 'conduit_upstream_requests_total', { kind: 'Orb', status }) || 0;

    // The sync is over (previous test): only the live list meets this 429, which the HTTP client retries;
    // both attempts are counted.
    sim.faults.add({ status: 429, count: 1, retryAfterSeconds: 0, pathIncludes: '/customers' });
    const list = await platform.call('POST', `/api/v1/integrations/connectors/${connectorId}/execute`, {
      entity: 'customers',
      action: 'list',
      params: { limit: 3 },
    });
    expect(list.status).toBe(200);
    const bad = await platform.call('POST', `/api/v1/integrations/connectors/${connectorId}/execute`, {
      entity: 'customers',
      action: 'search',
      params: { query: { filter: { eq: { no_such_field: 1 } } } },
    });
    expect(bad.status).toBe(400);

    const after = await scrapeApi();
    expect(executeCount(after, '200') - executeCount(before, '200')).toBe(1);
    expect(executeCount(after, '400') - executeCount(before, '400')).toBe(1);
    expect(upstream(after, '429') - upstream(before, '429')).toBe(1);
    expect(upstream(after, '200') - upstream(before, '200')).toBeGreaterThanOrEqual(1);
    // Raw paths (with the connector id) never become labels.
    expect(after).not.toContain(connectorId);
    // Unknown paths share one label.
    await fetch(`${platform.url}/no/such/${connectorId}`);
    const unmatched = await scrapeApi();
    expect(
      sample(unmatched, 'conduit_http_request_duration_seconds_count', { route: 'unmatched', status: '404' }),
    ).toBe(1);
    expect(unmatched).not.toContain(connectorId);
  });
});
