import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForEntity } from '../harness/connector-status.ts';
import { createConnector } from '../harness/create-connector.ts';
import {
  ALL_ENTITIES_AT_ONCE,
  closeInOrder,
  eventually,
  startTestPlatform,
  type TestPlatform,
} from '../harness/platform.ts';
import { tasklaneDefinition } from '../simulators/tasklane/definition.ts';
import { startTasklane, type TasklaneSimulator } from '../simulators/tasklane/simulator.ts';

describe('a connector kind defined at run time', () => {
  let upstream: TasklaneSimulator;
  let platform: TestPlatform;
  let connectorId: string;
  let postedAt: number;

  beforeAll(async () => {
    upstream = await startTasklane();
    platform = await startTestPlatform({
      env: { ...ALL_ENTITIES_AT_ONCE, CONNECTOR_EGRESS_ALLOW: new URL(upstream.url).host },
    });
  });
  afterAll(() => closeInOrder(platform, upstream));

  const execute = (entity: string, action: string, params: unknown) =>
    platform.call('POST', `/api/v1/integrations/connectors/${connectorId}/execute`, { entity, action, params });
  const search = async (entity: string, query: unknown, extra: Record<string, unknown> = {}) => {
    const response = await execute(entity, 'search', { query, limit: 1000, ...extra });
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as { data: Record<string, unknown>[]; meta: { total?: { value: number } } };
  };

  it('goes from POST to searchable records in under 60 s', async () => {
    postedAt = Date.now();
    const posted = await platform.call('POST', '/api/v1/connector-definitions', tasklaneDefinition(upstream.url));
    expect(posted.status, await posted.clone().text()).toBe(201);
    expect(await posted.json()).toEqual({ name: 'Tasklane', version: 1 });

    connectorId = await createConnector(platform, {
      customer_name: 'acme',
      connector_type: 'tasklane',
      name: 'work',
      credentials: { api_key: upstream.apiKey },
      replication_config: { start_date: '2024-01-01T00:00:00Z' },
    });
    await waitForEntity(platform, connectorId, 'tasks', (s) => s.status === 'ready' && s.record_count === 230, 60_000);
    await waitForEntity(platform, connectorId, 'people', (s) => s.status === 'ready' && s.record_count === 57, 60_000);
    const byKey = await search('tasks', { filter: { eq: { id: 17 } } });
    // Results carry the record key as text, as for every kind (docs/search.md).
    expect(byKey.data.map((t) => t.id)).toEqual(['17']);
    const byFilter = await search('tasks', {
      filter: { and: [{ eq: { status: 'done' } }, { contains: { labels: 'ux' } }] },
    });
    const expected = [...upstream.tasks.values()].filter((t) => t.status === 'done' && t.labels.includes('ux'));
    expect(byFilter.data.map((t) => Number(t.id)).sort()).toEqual(expected.map((t) => t.id).sort());
    expect(Date.now() - postedAt).toBeLessThan(60_000);
    // The Link-header pages were all read (57 people at 50 a page), and the tasks' nested records.
    expect(upstream.requests.filter((r) => r.startsWith('GET /v3/people')).length).toBeGreaterThanOrEqual(2);
  });

  it('picks up an upstream edit on the next incremental run', async () => {
    upstream.edit(17, { title: 'Task 17: renamed upstream', status: 'done' });
    const sync = await platform.call('POST', `/api/v1/integrations/connectors/${connectorId}/sync`, {
      entity: 'tasks',
    });
    expect(sync.status).toBe(202);
    await eventually(async () => {
      const found = await search('tasks', { filter: { eq: { title: 'Task 17: renamed upstream' } } });
      return found.data.length === 1 ? found : undefined;
    }, 30_000);
    const since = upstream.requests.filter((r) => r.includes('updated_since=')).at(-1);
    expect(since, 'the run read only what changed since its cursor').toMatch(/updated_since=2/);
  });

  it('lists, gets and creates live, with its params checked like a built-in kind’s', async () => {
    const list = await execute('tasks', 'list', { limit: 5 });
    expect(list.status).toBe(200);
    expect(((await list.json()) as { data: unknown[] }).data).toHaveLength(5);
    const get = await execute('tasks', 'get', { id: 3 });
    expect(((await get.json()) as { data: { id: number } }).data.id).toBe(3);
    const created = await execute('tasks', 'create', { title: 'from conduit' });
    expect(created.status).toBe(200);
    expect(((await created.json()) as { data: { title: string } }).data.title).toBe('from conduit');
    const unknown = await execute('tasks', 'list', { limt: 5 });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(await unknown.json())).toContain("Did you mean 'limit'");
  });

  it('is invisible to another organization: its definition, its connectors and its name', async () => {
    const other = await platform.anotherOrganization();
    const headers = { authorization: `Bearer ${other.token}` };
    expect((await platform.call('GET', '/api/v1/connector-definitions/Tasklane', undefined, headers)).status).toBe(404);
    const listed = await platform.call('GET', '/api/v1/connector-definitions', undefined, headers);
    expect(((await listed.json()) as { data: unknown[] }).data).toEqual([]);
    // Creating a connector of that kind answers exactly as for a name nobody defined.
    const attempt = async (connectorType: string) => {
      const response = await platform.call(
        'POST',
        '/api/v1/integrations/connectors',
        {
          customer_name: 'b',
          connector_type: connectorType,
          name: 'x',
          credentials: { api_key: upstream.apiKey },
          replication_config: { start_date: '2024-01-01T00:00:00Z' },
        },
        headers,
      );
      return { status: response.status, body: (await response.text()).replaceAll(connectorType, 'KIND') };
    };
    const defined = await attempt('Tasklane');
    expect(defined.status).toBe(400);
    expect(defined).toEqual(await attempt('Nobodys-Kind'));
    const theirs = await platform.call('GET', `/api/v1/integrations/connectors/${connectorId}`, undefined, headers);
    expect(theirs.status).toBe(404);
  });

  it('refuses an invalid definition with every problem at once, each with its JSON pointer', async () => {
    const bad = tasklaneDefinition(upstream.url) as Record<string, unknown> & {
      entities: Record<string, Record<string, unknown>>;
    };
    (bad.entities.tasks!.list as Record<string, unknown>).paging = { type: 'cursr', param: 'cursor' };
    bad.entities.tasks!.serchable = 'all';
    const response = await platform.call('POST', '/api/v1/connector-definitions', bad);
    expect(response.status).toBe(422);
    const problem = (await response.json()) as { code: string; errors: { path: string; message: string }[] };
    expect(problem.code).toBe('invalid_definition');
    expect(problem.errors).toEqual(
      expect.arrayContaining([
        { path: '/entities/tasks/list/paging/type', message: expect.stringContaining("Did you mean 'cursor'") },
        { path: '/entities/tasks/serchable', message: expect.stringContaining("Did you mean 'searchable'") },
      ]),
    );
  });

  it('tests a version against the upstream without writing anything', async () => {
    const before = upstream.tasks.size;
    const response = await platform.call('POST', '/api/v1/connector-definitions/Tasklane/test', {
      credentials: { api_key: upstream.apiKey },
      max_pages: 2,
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const result = (await response.json()) as {
      entities: { entity: string; pages: number; records: unknown[]; problems: string[] }[];
      requests: { url: string; status: number }[];
    };
    const tasks = result.entities.find((e) => e.entity === 'tasks')!;
    expect(tasks.pages).toBe(2);
    expect(tasks.records).toHaveLength(20);
    expect(tasks.problems).toEqual([]);
    expect(result.requests.every((r) => r.status === 200)).toBe(true);
    expect(JSON.stringify(result)).not.toContain(upstream.apiKey);
    expect(upstream.tasks.size).toBe(before);
  });

  it('versions, rolls back and refuses to delete a kind in use', async () => {
    const v2 = tasklaneDefinition(upstream.url);
    v2.entities.people.fields = { ...v2.entities.people.fields, ...{ name: 'string!' } };
    const posted = await platform.call('POST', '/api/v1/connector-definitions', v2);
    expect(await posted.json()).toEqual({ name: 'Tasklane', version: 2 });
    expect(
      (await platform.call('POST', '/api/v1/connector-definitions/Tasklane/activate', { version: 2 })).status,
    ).toBe(200);
    expect(
      (await platform.call('POST', '/api/v1/connector-definitions/Tasklane/activate', { version: 1 })).status,
    ).toBe(200);
    const kind = (await (await platform.call('GET', '/api/v1/connector-definitions/Tasklane')).json()) as {
      active_version: number;
      versions: unknown[];
    };
    expect(kind.active_version).toBe(1);
    expect(kind.versions).toHaveLength(2);
    const deleted = await platform.call('DELETE', '/api/v1/connector-definitions/Tasklane');
    expect(deleted.status).toBe(409);
    expect(((await deleted.json()) as { code: string }).code).toBe('definition_in_use');
  });

  it('gives agents MCP tools for the kind, and tools to validate and test a definition', async () => {
    const client = new Client({ name: 'definitions-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${platform.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${await platform.token()}` } },
      }),
    );
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'tasklane_execute',
          'tasklane_search',
          'tasklane_sql',
          'validate_connector_definition',
          'test_connector_definition',
        ]),
      );
      const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;
      const found = await client.callTool({
        name: 'tasklane_search',
        arguments: { connector_id: connectorId, entity: 'tasks', query: { filter: { eq: { id: 5 } } } },
      });
      expect(JSON.parse(text(found)).data.map((t: { id: string }) => t.id)).toEqual(['5']);
      const counted = await client.callTool({
        name: 'tasklane_sql',
        arguments: { connector_id: connectorId, query: "SELECT COUNT(*) AS n FROM tasks WHERE status = 'done'" },
      });
      const done = [...upstream.tasks.values()].filter((t) => t.status === 'done').length;
      expect(JSON.parse(text(counted)).data).toEqual([{ n: done }]);
      const invalid = await client.callTool({
        name: 'validate_connector_definition',
        arguments: { definition: { ...tasklaneDefinition(upstream.url), base_url: 'https://{tenant}.example' } },
      });
      expect(invalid.isError).toBe(true);
      expect(text(invalid)).toContain('/base_url');
      const tested = await client.callTool({
        name: 'test_connector_definition',
        arguments: { name: 'Tasklane', credentials: { api_key: upstream.apiKey }, entities: ['people'] },
      });
      expect(JSON.parse(text(tested)).entities[0]).toMatchObject({ entity: 'people', problems: [] });
    } finally {
      await client.close();
    }
  });

  it('publishes the format as JSON Schema', async () => {
    const response = await platform.call('GET', '/api/v1/connector-definitions/schema');
    expect(response.status).toBe(200);
    const schema = (await response.json()) as { $schema: string; required: string[] };
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.required).toEqual(expect.arrayContaining(['name', 'base_url', 'auth', 'entities']));
  });
});
