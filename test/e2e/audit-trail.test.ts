import type { AuditEntry as Entry, AuditPage as Page } from '@conduit/client';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiProcess } from '../harness/api-process.ts';
import { cleanupsAfterAll } from '../harness/cleanups.ts';
import { createConnector } from '../harness/create-connector.ts';
import { orbSettingsFrom, startOrbSimulatorPlatform } from '../harness/orb-connector.ts';
import { eventually, type TestPlatform } from '../harness/platform.ts';
import type { OrbSimulator } from '../simulators/orb/simulator.ts';

async function auditPage(platform: TestPlatform, query = ''): Promise<Page> {
  const response = await platform.call('GET', `/api/v1/audit${query}`);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as Page;
}

/** An Orb simulator, a platform without a worker, and one Orb connector on it. */
async function platformWithConnector(cleanups: (() => Promise<void>)[], name: string) {
  const { sim, platform } = await startOrbSimulatorPlatform(
    cleanups,
    { customers: 5, subscriptionsPerCustomer: 0 },
    { worker: false },
  );
  const id = await createConnector(platform, {
    customer_name: 'audit',
    name,
    ...orbSettingsFrom(sim.apiKey, '2024-01-01T00:00:00Z'),
  });
  return { sim, platform, id };
}

// The three parts side by side (each its own platform; most of the SIGKILL part is starting API processes), each
// part's tests in order.
describe.concurrent('the audit trail', () => {
  const cleanups = cleanupsAfterAll();
  let sim: OrbSimulator;
  let platform: TestPlatform;
  let id: string;
  const execute = (body: unknown, headers: Record<string, string> = {}) =>
    platform.call('POST', `/api/v1/integrations/connectors/${id}/execute`, body, headers);

  beforeAll(async () => {
    ({ sim, platform, id } = await platformWithConnector(cleanups, 'trail'));
  }, 60_000);

  it.sequential('an answered execute call is in the trail when its answer arrives: who, what, params, statuses, latency, request id', async () => {
    const response = await execute({ entity: 'customers', action: 'list', params: { limit: 2 } });
    expect(response.status).toBe(200);
    // No waiting: the entry was durable before the answer was sent.
    const [entry] = (await auditPage(platform, `?connector_id=${id}&limit=1`)).data;
    expect(entry).toMatchObject({
      client_id: platform.clientId,
      connector_id: id,
      source: 'api',
      action: 'execute.list',
      entity: 'customers',
      params: { limit: 2 },
      status: 200,
      upstream_status: 200,
      error_code: null,
      request_id: response.headers.get('x-request-id'),
    });
    expect(entry!.latency_ms).toBeGreaterThan(0);
  });

  it.sequential('a refused call is audited with its error code and the upstream status', async () => {
    sim.faults.add({ status: 422, count: 1, pathIncludes: '/v1/customers' });
    expect((await execute({ entity: 'customers', action: 'list', params: {} })).status).toBe(400);
    const bad = await execute({ entity: 'customers', action: 'list', params: { nope: 1 } });
    expect(bad.status).toBe(400);
    const [invalid, rejected] = (await auditPage(platform, `?connector_id=${id}&limit=2`)).data;
    expect(invalid).toMatchObject({ action: 'execute.list', status: 400, error_code: 'invalid_params' });
    expect(rejected).toMatchObject({ status: 400, error_code: 'upstream_rejected', upstream_status: 422 });
  });

  it.sequential('connector create, update, webhook secret set and remove, and delete are audited with secrets redacted', async () => {
    const other = await createConnector(platform, {
      customer_name: 'audit',
      name: 'short-lived',
      ...orbSettingsFrom(sim.apiKey, '2024-01-01T00:00:00Z'),
    });
    const secret = 'whsec-very-secret-value-1234';
    const patch = (body: unknown) => platform.call('PATCH', `/api/v1/integrations/connectors/${other}`, body);
    expect((await patch({ name: 'renamed', credentials: { api_key: sim.apiKey } })).status).toBe(200);
    expect((await patch({ webhook_secret: secret })).status).toBe(200);
    expect((await patch({ webhook_secret: null })).status).toBe(200);
    expect((await platform.call('DELETE', `/api/v1/integrations/connectors/${other}`)).status).toBe(204);

    const entries = (await auditPage(platform, `?connector_id=${other}`)).data;
    expect(entries.map((e) => e.action)).toEqual([
      'connector.delete',
      'connector.webhook_secret.remove',
      'connector.webhook_secret.set',
      'connector.update',
      'connector.create',
    ]);
    expect(entries.every((e) => e.client_id === platform.clientId && e.status! < 300)).toBe(true);
    expect(entries[4]!.params).toMatchObject({ credentials: { api_key: '[REDACTED]' }, name: 'short-lived' });
    expect(entries[3]!.params).toMatchObject({ credentials: { api_key: '[REDACTED]' }, name: 'renamed' });
    expect(entries[2]!.params).toEqual({ webhook_secret: '[REDACTED]' });
    expect(entries[1]!.params).toEqual({ webhook_secret: null });

    // No secret anywhere in the export.
    const exported = await (
      await platform.call('GET', '/api/v1/audit', undefined, { accept: 'application/x-ndjson' })
    ).text();
    expect(exported).not.toContain(sim.apiKey);
    expect(exported).not.toContain(secret);
  });

  it.sequential('webhook endpoint changes and replays are audited; the endpoint secret is never in the trail', async () => {
    const created = await platform.call('POST', '/api/v1/webhook-endpoints', {
      url: 'https://hooks.example.com/audit',
      entities: ['customers'],
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { id, secret } = (await created.json()) as { id: string; secret: string };
    const path = `/api/v1/webhook-endpoints/${id}`;
    expect((await platform.call('PATCH', path, { description: 'audited' })).status).toBe(200);
    expect((await platform.call('POST', `${path}/replay`, { after: '0' })).status).toBeLessThan(300);
    expect((await platform.call('GET', path)).status).toBe(200);
    expect((await platform.call('DELETE', path)).status).toBe(204);

    const entries = (await auditPage(platform, '?action=webhook_endpoint')).data;
    expect(entries.map((e) => e.action)).toEqual([
      'webhook_endpoint.delete',
      'webhook_endpoint.replay',
      'webhook_endpoint.update',
      'webhook_endpoint.create',
    ]);
    expect(entries.every((e) => e.client_id === platform.clientId && e.status! < 300)).toBe(true);
    expect(entries[3]!.params).toMatchObject({ url: 'https://hooks.example.com/audit', entities: ['customers'] });
    expect(entries[2]!.params).toMatchObject({ id, description: 'audited' });
    const exported = await (
      await platform.call('GET', '/api/v1/audit', undefined, { accept: 'application/x-ndjson' })
    ).text();
    expect(exported).not.toContain(secret);
  });

  it.sequential('filters by connector, action prefix, status and time; pages newest first with a cursor, without repeats', async () => {
    const before = new Date().toISOString();
    for (let i = 0; i < 5; i++) {
      expect((await execute({ entity: 'customers', action: 'list', params: { limit: i + 1 } })).status).toBe(200);
    }
    const seen: Entry[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = await auditPage(
        platform,
        `?connector_id=${id}&action=execute&status=2xx&since=${encodeURIComponent(before)}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...page.data);
      cursor = page.meta.cursor;
    } while (cursor);
    expect(seen.map((e) => e.params?.limit)).toEqual([5, 4, 3, 2, 1]);
    expect(new Set(seen.map((e) => e.id)).size).toBe(5);
    expect((await auditPage(platform, `?status=4xx&connector_id=${id}`)).data.every((e) => e.status! >= 400)).toBe(
      true,
    );
    expect((await auditPage(platform, `?until=${encodeURIComponent(before)}&action=execute.list`)).data).not.toEqual(
      [],
    );
    const bad = await platform.call('GET', '/api/v1/audit?status=teapot');
    expect(bad.status).toBe(400);
  });

  it.sequential('exports every matching entry as NDJSON, newest first', async () => {
    const response = await platform.call('GET', `/api/v1/audit?connector_id=${id}`, undefined, {
      accept: 'application/x-ndjson',
    });
    expect(response.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = (await response.text()).trim().split('\n');
    const entries = lines.map((line) => JSON.parse(line) as Entry);
    expect(entries.length).toBeGreaterThanOrEqual(9);
    expect(entries.every((e) => e.connector_id === id)).toBe(true);
    // Ids are opaque: newest first is the order of the pages, which read newest first.
    const paged = (await auditPage(platform, `?connector_id=${id}&limit=1000`)).data;
    expect(entries.map((e) => e.id)).toEqual(paged.map((e) => e.id));
  });

  it.sequential('concurrent calls are each audited before their answer (batched into shared inserts)', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        execute(
          { entity: 'customers', action: 'list', params: { limit: 1 } },
          {
            'x-request-id': `concurrent-${i}`,
          },
        ),
      ),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const recent = (await auditPage(platform, `?connector_id=${id}&limit=20`)).data;
    expect(new Set(recent.map((e) => e.request_id))).toEqual(new Set(answers.map((_, i) => `concurrent-${i}`)));
  });

  it.sequential('MCP tool calls are audited, and the API calls they make are marked as coming through MCP', async () => {
    const response = await platform.call(
      'POST',
      '/mcp',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'orb_execute',
          arguments: { connector_id: id, entity: 'customers', action: 'list', params: { limit: 1 } },
        },
      },
      { accept: 'application/json, text/event-stream' },
    );
    expect(response.status, await response.clone().text()).toBe(200);
    // Newest first: by when each entry was written (the tool call's when it ends, after the API call it makes).
    const latest = (await auditPage(platform, '?limit=2')).data;
    const toolCall = latest.find((e) => e.action === 'mcp.tool_call');
    const inner = latest.find((e) => e.action !== 'mcp.tool_call');
    expect(toolCall).toMatchObject({ source: 'mcp', action: 'mcp.tool_call', entity: 'orb_execute', connector_id: id });
    expect(inner).toMatchObject({ source: 'mcp', action: 'execute.list', connector_id: id, status: 200 });
  });

  it.sequential('is append-only in the database: the application’s own connection cannot update, delete or truncate entries', async () => {
    const db = new pg.Client({ connectionString: platform.api.deps.env.DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query<{ count: string }>('select count(*) from audit_entries');
      for (const statement of [
        `update audit_entries set action = 'forged'`,
        'delete from audit_entries',
        'truncate audit_entries',
      ]) {
        await expect(db.query(statement), statement).rejects.toThrow(/append-only/);
      }
      const after = await db.query<{ count: string; forged: string }>(
        `select count(*), count(*) filter (where action = 'forged') as forged from audit_entries`,
      );
      expect(after.rows[0]).toEqual({ count: rows[0]!.count, forged: '0' });
      // The retention's own path refuses a retention under a day.
      await expect(db.query(`select audit_purge(interval '1 hour')`)).rejects.toThrow(/at least one day/);
    } finally {
      await db.end();
    }
  });
});

describe.concurrent('the audit trail when the API process is killed (SIGKILL)', () => {
  const cleanups = cleanupsAfterAll();
  let sim: OrbSimulator;
  let platform: TestPlatform;
  let id: string;
  let doomed: ApiProcess | undefined;
  /** Every API process a test started, killed at the end even when a test failed before stopping its own. */
  const started: ApiProcess[] = [];

  beforeAll(async () => {
    ({ sim, platform, id } = await platformWithConnector(cleanups, 'killed'));
    cleanups.push(async () => {
      sim.faults.release();
      for (const api of started) await api.kill();
    });
  }, 60_000);

  const startDoomed = async () => {
    const api = await ApiProcess.start(platform.api.deps.env, {
      CONNECTOR_BASE_URL_ORB: sim.url,
      RATE_LIMIT_PER_MINUTE: '1000000',
    });
    started.push(api);
    return api;
  };

  /** A live list on the connector through `api`, with this request id: its status. */
  async function executeOn(api: ApiProcess, requestId: string): Promise<number> {
    const response = await fetch(`${api.url}/api/v1/integrations/connectors/${id}/execute`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await platform.token()}`,
        'content-type': 'application/json',
        'x-request-id': requestId,
      },
      body: JSON.stringify({ entity: 'customers', action: 'list', params: { limit: 1 } }),
    });
    await response.arrayBuffer();
    return response.status;
  }

  /** Every entry whose request id starts with `prefix`, by request id; fails on an id found twice. */
  async function trailOf(prefix: string): Promise<Map<string | null, Entry>> {
    const entries = (await auditPage(platform, `?connector_id=${id}&action=execute&limit=1000`)).data.filter((e) =>
      e.request_id?.startsWith(prefix),
    );
    const byRequest = new Map(entries.map((e) => [e.request_id, e]));
    expect(byRequest.size, 'each call once').toBe(entries.length);
    return byRequest;
  }

  /** Whether every answered call is in the trail once with its outcome. */
  async function expectAllAudited(prefix: string, answered: string[]): Promise<void> {
    const check = async () => {
      const byRequest = await trailOf(prefix);
      for (const requestId of answered) {
        expect(byRequest.get(requestId), requestId).toMatchObject({ action: 'execute.list', status: 200 });
        expect(byRequest.get(requestId)!.latency_ms).toBeGreaterThan(0);
      }
      return byRequest;
    };
    const byRequest = await check();
    // A call cut off by the kill: nothing, or its whole entry (committed, the answer lost on the way).
    for (const entry of byRequest.values()) expect(entry.status).not.toBeNull();
  }

  it.sequential('every call answered before the kill is in the trail with its outcome, once', async () => {
    doomed = await startDoomed();
    const api = doomed;
    const answered: string[] = [];
    let killing: Promise<void> | undefined;
    // Eight callers in a loop; the process dies the moment the 40th answer arrives, with calls still in flight.
    const caller = async (n: number) => {
      for (let i = 0; ; i++) {
        const requestId = `killed-${n}-${i}`;
        const status = await executeOn(api, requestId).catch(() => undefined);
        if (status === undefined) return;
        expect(status).toBe(200);
        answered.push(requestId);
        if (answered.length === 40) killing = api.kill();
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, n) => caller(n)));
    await killing;
    await expectAllAudited('killed-', answered);
  }, 60_000);
});

describe.concurrent('audit retention', () => {
  const cleanups = cleanupsAfterAll();

  it.sequential('the worker removes entries older than AUDIT_RETENTION and keeps the rest', async () => {
    const { platform } = await startOrbSimulatorPlatform(
      cleanups,
      { customers: 1, subscriptionsPerCustomer: 0 },
      { env: { AUDIT_RETENTION: '30d', RETENTION_INTERVAL: '200ms' } },
    );
    const day = 86_400_000;
    const base = { organizationId: platform.organizationId, source: 'api' as const, status: 200, latencyMs: 1 };
    await platform.api.deps.audit.record({ ...base, action: 'test.old', at: new Date(Date.now() - 400 * day) });
    await platform.api.deps.audit.record({ ...base, action: 'test.recent', at: new Date(Date.now() - 2 * day) });
    await eventually(async () =>
      (await auditPage(platform, '?action=test.old')).data.length === 0 ? true : undefined,
    );
    expect((await auditPage(platform, '?action=test.recent')).data).toHaveLength(1);
  }, 60_000);
});
