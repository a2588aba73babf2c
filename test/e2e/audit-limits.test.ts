import type { AuditEntry as Entry, AuditPage as Page } from '@conduit/client';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { cleanupsAfterAll } from '../harness/cleanups.ts';
import { createConnector } from '../harness/create-connector.ts';
import { orbSettingsFrom, startOrbSimulatorPlatform } from '../harness/orb-connector.ts';
import type { TestPlatform } from '../harness/platform.ts';
import type { OrbSimulator } from '../simulators/orb/simulator.ts';

const MCP_ACCEPT = 'application/json, text/event-stream';
const CONNECTORS = '/api/v1/integrations/connectors';
/** Low enough that a flood crosses it in a moment; each test acts as an organization (and client) of its own. */
const RATE_LIMIT_PER_MINUTE = 60;

/** An organization with a client of its own: its id and calls with its token (`body` as given when a string). */
interface Tenant {
  readonly organizationId: string;
  readonly token: string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
}

/** Sum of the samples of `name` whose labels include every pair of `labels` (Prometheus text format). */
function sample(text: string, name: string, labels: Record<string, string>): number {
  let total = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const pairs = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/([a-zA-Z_]\w*)="([^"]*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => pairs[k] === v)) total += Number(match[3]);
  }
  return total;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

describe('the audit trail under a hostile tenant', () => {
  const cleanups = cleanupsAfterAll();
  let sim: OrbSimulator;
  let platform: TestPlatform;
  let db: pg.Client;

  const tenant = async (): Promise<Tenant> => {
    const { organizationId, token } = await platform.anotherOrganization();
    return {
      organizationId,
      token,
      call: (method, path, body, headers = {}) =>
        fetch(`${platform.url}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...headers,
          },
          ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
        }),
    };
  };
  const connectorOf = (who: Tenant) =>
    createConnector(
      platform,
      { customer_name: 'limits', name: 'orb', ...orbSettingsFrom(sim.apiKey, '2024-01-01T00:00:00Z') },
      who.token,
    );
  const trail = async (who: Tenant, query = ''): Promise<Entry[]> => {
    const response = await who.call('GET', `/api/v1/audit?limit=1000${query}`);
    expect(response.status, await response.clone().text()).toBe(200);
    return ((await response.json()) as Page).data;
  };
  const storedRows = async (organizationId: string) =>
    (
      await db.query<{ id: string; status: number | null; params: string | null }>(
        `select e.id, coalesce(o.status, e.status) as status, e.params::text as params from audit_entries e
         left join audit_outcomes o on o.entry_id = e.id where e.organization_id = $1 order by e.id`,
        [organizationId],
      )
    ).rows;
  const mcp = (who: Tenant, body: unknown) => who.call('POST', '/mcp', body, { accept: MCP_ACCEPT });
  const toolCall = (id: number, name: string, args: string) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":${args}}}`;

  beforeAll(async () => {
    ({ sim, platform } = await startOrbSimulatorPlatform(
      cleanups,
      { customers: 3, subscriptionsPerCustomer: 0 },
      { worker: false, env: { RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT_PER_MINUTE) } },
    ));
    db = new pg.Client({ connectionString: platform.api.deps.env.DATABASE_URL });
    await db.connect();
    cleanups.push(() => db.end());
  }, 60_000);

  it('a call refused by the rate limit writes no audit row; the refusals are counted by route group instead', async () => {
    const flooder = await tenant();
    const counted = async () =>
      sample(await (await fetch(`${platform.url}/metrics`)).text(), 'conduit_api_requests_refused_total', {
        route: 'connectors',
        reason: 'rate_limited',
      });
    const before = await counted();
    const statuses: number[] = [];
    // An audited call (execute) on a connector the flooder does not have: 404 when admitted, 429 when refused.
    for (let wave = 0; wave < 10; wave++) {
      const answers = await Promise.all(
        Array.from({ length: 15 }, () =>
          flooder.call('POST', `${CONNECTORS}/no-such-connector/execute`, { entity: 'customers', action: 'list' }),
        ),
      );
      statuses.push(...answers.map((a) => a.status));
    }
    const refused = statuses.filter((s) => s === 429).length;
    const accepted = statuses.filter((s) => s !== 429).length;
    expect(refused).toBeGreaterThan(0);
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThanOrEqual(RATE_LIMIT_PER_MINUTE + 10);
    expect(new Set(statuses.filter((s) => s !== 429))).toEqual(new Set([404]));

    const rows = await storedRows(flooder.organizationId);
    expect(rows).toHaveLength(accepted);
    expect(rows.filter((row) => row.status === 429)).toEqual([]);
    expect((await counted()) - before).toBe(refused);
  });

  it('an NDJSON export takes one of two slots of its organization (the third gets 429 with Retry-After), streams every entry, and another organization stays fast meanwhile', async () => {
    const exporter = await tenant();
    const bystander = await tenant();
    const entries = 20_000;
    await db.query(
      `insert into audit_entries (organization_id, client_id, source, action, entity, params, status, latency_ms)
       select $1, 'seed', 'api', 'execute.search', 'invoices',
              jsonb_build_object('filter', jsonb_build_object('status', 'issued', 'n', n, 'pad', repeat('x', 300))),
              200, 12.5
       from generate_series(1, $2::int) as n`,
      [exporter.organizationId, entries],
    );
    const exportOf = (who: Tenant) => who.call('GET', '/api/v1/audit', undefined, { accept: 'application/x-ndjson' });
    // Two exports with their answers started and their bodies not read: both slots taken.
    const first = await exportOf(exporter);
    const second = await exportOf(exporter);
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await exportOf(exporter);
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('5');
    expect(((await third.json()) as { code: string }).code).toBe('rate_limited');
    // Another organization's exports have slots of their own.
    const elsewhere = await exportOf(bystander);
    expect(elsewhere.status).toBe(200);
    await elsewhere.text();

    // The bystander's page reads while both exports stream.
    const latencies: number[] = [];
    const probing = (async () => {
      for (let i = 0; i < 15; i++) {
        const started = performance.now();
        const response = await bystander.call('GET', '/api/v1/audit?limit=10');
        expect(response.status).toBe(200);
        await response.arrayBuffer();
        latencies.push(performance.now() - started);
      }
    })();
    const [firstText, secondText] = await Promise.all([first.text(), second.text(), probing]);
    for (const text of [firstText, secondText]) expect(text!.trim().split('\n')).toHaveLength(entries);
    expect(median(latencies), JSON.stringify(latencies.map(Math.round))).toBeLessThan(250);

    // Both slots given back when their exports ended: the next export runs.
    const again = await exportOf(exporter);
    expect(again.status).toBe(200);
    // A caller that goes away mid-export gives its slot back too.
    await again.body!.cancel();
    let freed = false;
    for (let i = 0; i < 50 && !freed; i++) {
      const [a, b] = [await exportOf(exporter), await exportOf(exporter)];
      freed = a.status === 200 && b.status === 200;
      await Promise.all([a.body?.cancel(), b.body?.cancel()]);
      if (!freed) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(freed).toBe(true);
  }, 120_000);

  it('JSON nested deeper than 64 levels is refused with 400 invalid_request, as execute params (search; create with and without Idempotency-Key) and as MCP tool arguments, never 500', async () => {
    const caller = await tenant();
    const connector = await connectorOf(caller);
    const shapes = {
      brackets: `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
      objects: `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`,
    };
    const answers: { what: string; response: Response }[] = [];
    for (const [shape, deep] of Object.entries(shapes)) {
      const execute = (action: string, headers: Record<string, string> = {}) =>
        caller.call(
          'POST',
          `${CONNECTORS}/${connector}/execute`,
          `{"entity":"customers","action":"${action}","params":${deep}}`,
          headers,
        );
      answers.push(
        { what: `${shape} search`, response: await execute('search') },
        { what: `${shape} create`, response: await execute('create') },
        {
          what: `${shape} create with Idempotency-Key`,
          response: await execute('create', { 'idempotency-key': `deep-${shape}` }),
        },
        {
          what: `${shape} MCP arguments`,
          response: await mcp(
            caller,
            toolCall(
              1,
              'orb_execute',
              `{"connector_id":"${connector}","entity":"customers","action":"search","params":${deep}}`,
            ),
          ),
        },
      );
    }
    for (const { what, response } of answers) {
      expect(response.status, what).toBe(400);
      const problem = (await response.json()) as { code: string; errors: { message: string }[] };
      expect(problem.code, what).toBe('invalid_request');
      expect(problem.errors[0]?.message, what).toMatch(/65 levels deep/);
    }
    expect(platform.logLines.filter((line) => line.includes('Maximum call stack'))).toEqual([]);
    // Nothing reached the upstream: no customer was created by any of them.
    expect((await trail(caller)).filter((e) => e.action === 'execute.create' && e.status === 201)).toEqual([]);
  });

  it('redaction replaces what lies beyond its depth: a password 17 levels down is never stored', async () => {
    const caller = await tenant();
    const connector = await connectorOf(caller);
    const secret = 'rt4-deep-secret-XYZ';
    let deep: unknown = { password: secret };
    for (let i = 0; i < 17; i++) deep = { level: deep };
    const params = JSON.stringify(deep);
    const executed = await caller.call('POST', `${CONNECTORS}/${connector}/execute`, {
      entity: 'customers',
      action: 'search',
      params: deep,
    });
    expect(executed.status).toBe(400);
    const tool = await mcp(
      caller,
      toolCall(
        2,
        'orb_execute',
        `{"connector_id":"${connector}","entity":"customers","action":"list","params":${params}}`,
      ),
    );
    expect(tool.status).toBe(200);
    const rows = await storedRows(caller.organizationId);
    const deepOnes = rows.filter((row) => row.params?.includes('level'));
    // The execute call, the MCP tool call and the execute call it made.
    expect(deepOnes).toHaveLength(3);
    for (const row of deepOnes) expect(row.params).toContain('[TRUNCATED]');
    expect(rows.filter((row) => row.params?.includes(secret))).toEqual([]);
  });

  it('/sql and /changes are audited with their params', async () => {
    const caller = await tenant();
    const connector = await connectorOf(caller);
    const query = 'SELECT COUNT(*) FROM customers';
    const sql = await caller.call('POST', `${CONNECTORS}/${connector}/sql`, { query });
    const changes = await caller.call('GET', `${CONNECTORS}/${connector}/changes?limit=5`);
    expect(changes.status).toBe(200);
    const [changesEntry, sqlEntry] = await trail(caller, `&connector_id=${connector}`);
    expect(sqlEntry).toMatchObject({
      action: 'connector.sql',
      connector_id: connector,
      client_id: expect.any(String),
      params: { query },
      status: sql.status,
      request_id: sql.headers.get('x-request-id'),
    });
    expect(changesEntry).toMatchObject({
      action: 'connector.changes',
      connector_id: connector,
      params: { limit: '5' },
      status: 200,
      request_id: changes.headers.get('x-request-id'),
    });
  });

  it('an MCP JSON-RPC batch is refused with 400 and runs no tool: nothing reaches the API or the trail', async () => {
    const caller = await tenant();
    const connector = await connectorOf(caller);
    const before = await trail(caller);
    const call = (id: number) =>
      JSON.parse(toolCall(id, 'orb_execute', `{"connector_id":"${connector}","entity":"customers","action":"list"}`));
    const batch = await mcp(caller, [call(1), call(2)]);
    expect(batch.status).toBe(400);
    expect(((await batch.json()) as { code: string }).code).toBe('invalid_request');
    expect(await trail(caller)).toEqual(before);
    // The same call sent alone runs, and is audited as a tool call and as the API call it made.
    const single = await mcp(caller, call(3));
    expect(single.status).toBe(200);
    const added = (await trail(caller)).slice(0, 2).map((e) => e.action);
    expect(added.sort()).toEqual(['execute.list', 'mcp.tool_call']);
  });

  it('audit ids and cursors are opaque: an organization cannot count another’s calls from its own, nor use its cursor', async () => {
    const watcher = await tenant();
    const busy = await tenant();
    const audited = (who: Tenant) =>
      who.call('POST', `${CONNECTORS}/no-such-connector/execute`, { entity: 'customers', action: 'list' });
    expect((await audited(watcher)).status).toBe(404);
    expect((await audited(watcher)).status).toBe(404);
    for (let i = 0; i < 40; i++) expect((await audited(busy)).status).toBe(404);
    expect((await audited(watcher)).status).toBe(404);

    const entries = await trail(watcher);
    expect(entries).toHaveLength(3);
    const internal = (await storedRows(watcher.organizationId)).map((row) => BigInt(row.id)).reverse();
    // Internally the gaps differ (one sequence for the platform): 1 with no other activity, 41 across busy's calls.
    expect(internal[0]! - internal[1]!).toBeGreaterThan(40n);
    for (const [i, entry] of entries.entries()) {
      expect(entry.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      const bytes = Buffer.from(entry.id, 'base64url');
      const asNumber = Buffer.alloc(8);
      asNumber.writeBigUInt64BE(internal[i]!);
      expect(bytes.includes(asNumber.subarray(4))).toBe(false);
      expect(entry.id).not.toContain(String(internal[i]));
    }

    // The cursor pages the watcher's own trail ...
    const first = await watcher.call('GET', '/api/v1/audit?limit=1');
    const { data, meta } = (await first.json()) as Page;
    expect(data[0]!.id).toBe(entries[0]!.id);
    expect(meta.cursor).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const next = (await (await watcher.call('GET', `/api/v1/audit?limit=1&cursor=${meta.cursor}`)).json()) as Page;
    expect(next.data[0]!.id).toBe(entries[1]!.id);
    // ... and is refused to another organization (it would otherwise place the other's reads in the sequence).
    const stolen = await busy.call('GET', `/api/v1/audit?limit=1&cursor=${meta.cursor}`);
    expect(stolen.status).toBe(400);
    expect(((await stolen.json()) as { code: string }).code).toBe('invalid_cursor');
    // A number, as the cursor used to carry, is no cursor.
    const numeric = Buffer.from(`a:${internal[0]}`).toString('base64url');
    expect((await watcher.call('GET', `/api/v1/audit?limit=1&cursor=${numeric}`)).status).toBe(400);
  });
});
