import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OrbConnectorFixture, startOrbConnector } from '../harness/orb-connector.ts';
import type { TestPlatform } from '../harness/platform.ts';

/**
 * The MCP server through the SDK's own client, over both transports: Streamable HTTP (POST /mcp on the API, the
 * same bearer token) and stdio (the server as a child process, with client credentials). Against the running
 * platform with the Orb simulator: list tools, search, page (both by the API's own pages and by cuts to the size
 * budget), and a validation error that names the field to fix.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
let platform: TestPlatform;
let fixture: OrbConnectorFixture;
let connectorId: string;
let expectedInvoices: string[];
const transcript: { direction: 'client→server' | 'server→client'; message: JSONRPCMessage }[] = [];

/** Records every JSON-RPC message the client sends and receives (the session transcript). */
function recorded(transport: Transport): Transport {
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    transcript.push({ direction: 'client→server', message });
    return send(message, options);
  };
  const start = transport.start.bind(transport);
  transport.start = async () => {
    const onmessage = transport.onmessage;
    transport.onmessage = (message, extra) => {
      transcript.push({ direction: 'server→client', message });
      onmessage?.(message, extra);
    };
    return start();
  };
  return transport;
}

async function httpClient(token: string, record = false): Promise<Client> {
  const client = new Client({ name: 'conduit-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${platform.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(record ? recorded(transport) : transport);
  return client;
}

async function stdioClient(budgetChars: number): Promise<Client> {
  const client = new Client({ name: 'conduit-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['packages/mcp/src/stdio.ts'],
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        CONDUIT_URL: platform.url,
        CONDUIT_CLIENT_ID: platform.clientId,
        CONDUIT_CLIENT_SECRET: platform.clientSecret,
        CONDUIT_MCP_BUDGET_CHARS: String(budgetChars),
      },
      stderr: 'pipe',
    }),
  );
  return client;
}

type SearchAnswer = {
  data: { id: string; status?: string }[];
  meta: { has_more: boolean; cursor: string | null; cut_to_budget: boolean };
};
const text = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as { text: string }[])[0]!.text;
const answer = (result: Awaited<ReturnType<Client['callTool']>>) => {
  expect(result.isError, text(result)).toBeFalsy();
  return JSON.parse(text(result)) as SearchAnswer;
};

/** One search of the Orb connector's invoices through the search tool. */
async function searchInvoices(client: Client, args: Record<string, unknown>) {
  return answer(
    await client.callTool({
      name: 'orb_search',
      arguments: { connector_id: connectorId, entity: 'invoices', ...args },
    }),
  );
}

/** Every page of a search tool call, following meta.cursor with the same arguments. */
async function searchEveryPage(client: Client, args: Record<string, unknown>) {
  const pages: SearchAnswer[] = [];
  let cursor: string | null = null;
  do {
    const page = answer(
      await client.callTool({ name: 'orb_search', arguments: { ...args, ...(cursor ? { cursor } : {}) } }),
    );
    pages.push(page);
    cursor = page.meta.has_more ? page.meta.cursor : null;
  } while (cursor && pages.length < 200);
  return pages;
}

beforeAll(async () => {
  fixture = await startOrbConnector({ size: 8 });
  ({ platform, connectorId } = fixture);
  expectedInvoices = [...new Set(fixture.sim.expectedKeys('invoices'))].sort();
}, 180_000);

afterAll(async () => {
  await fixture?.close();
  if (transcript.length) {
    mkdirSync(`${root}/.data`, { recursive: true });
    writeFileSync(`${root}/.data/mcp-session-transcript.json`, JSON.stringify(transcript, null, 2));
  }
});

describe('MCP over Streamable HTTP (POST /mcp)', () => {
  it('lists tools with input schemas derived from the catalog, and runs a search (transcript recorded)', async () => {
    const client = await httpClient(await platform.token(), true);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    // The kinds of the caller's connectors only (here: Orb).
    expect(names).toEqual([
      'list_connectors',
      'describe_connector',
      'changes',
      'validate_connector_definition',
      'save_connector_definition',
      'test_connector_definition',
      'orb_execute',
      'orb_search',
      'orb_sql',
    ]);
    const search = tools.find((t) => t.name === 'orb_search')!.inputSchema as unknown as {
      oneOf: { properties: { entity: { const: string } } }[];
      $defs: Record<string, { properties: Record<string, unknown> }>;
    };
    expect(search.oneOf.map((b) => b.properties.entity.const)).toEqual([
      'customers',
      'subscriptions',
      'plans',
      'invoices',
    ]);
    expect(search.$defs.orb__invoices!.properties.eq).toEqual({ $ref: '#/$defs/orb__invoices.eq' });
    expect(search.$defs['orb__invoices.eq']!.properties.status).toEqual({
      anyOf: [{ enum: ['draft', 'issued', 'paid', 'synced', 'void'] }, { type: 'null' }],
    });
    expect(search.$defs['orb__invoices.eq']!.properties).not.toHaveProperty('stauts');
    expect(search.$defs['orb__invoices.range']!.properties).not.toHaveProperty('auto_collection');
    const execute = tools.find((t) => t.name === 'orb_execute')!.inputSchema as unknown as { oneOf: unknown[] };
    expect(execute.oneOf.length).toBeGreaterThanOrEqual(8);

    const page = await searchInvoices(client, {
      query: { filter: { in: { status: ['paid', 'issued', 'draft', 'synced', 'void'] } }, sort: [{ id: 'asc' }] },
      limit: 3,
      fields: ['id', 'status'],
    });
    expect(page.data).toHaveLength(3);
    expect(page.meta.has_more).toBe(true);
    await client.close();
  });

  it('pages a search by the API’s own pages: every invoice once', async () => {
    const client = await httpClient(await platform.token());
    const pages = await searchEveryPage(client, {
      connector_id: connectorId,
      entity: 'invoices',
      query: {},
      limit: 2,
      fields: ['id'],
    });
    expect(pages.length).toBeGreaterThan(1);
    const ids = pages.flatMap((p) => p.data.map((r) => r.id));
    expect(ids.sort()).toEqual(expectedInvoices);
    await client.close();
  });

  it('answers aggregations through the search tool', async () => {
    const client = await httpClient(await platform.token());
    const result = (await searchInvoices(client, {
      query: {},
      limit: 0,
      aggregate: { by_status: { count_by: 'status' }, revenue: { sum: 'total' } },
    })) as SearchAnswer & { meta: { aggregations: { by_status: { key: string; count: number }[] } } };
    expect(result.data).toEqual([]);
    expect(result.meta.aggregations.by_status.reduce((n, b) => n + b.count, 0)).toBe(expectedInvoices.length);
    await client.close();
  });

  it('answers SQL through the sql tool, every invoice once across budget-cut pages', async () => {
    const client = await httpClient(await platform.token());
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page = answer(
        await client.callTool({
          name: 'orb_sql',
          arguments: {
            connector_id: connectorId,
            query: 'SELECT id FROM invoices ORDER BY id',
            limit: 3,
            ...(cursor ? { cursor } : {}),
          },
        }),
      );
      ids.push(...page.data.map((r) => r.id));
      cursor = page.meta.has_more ? page.meta.cursor : null;
    } while (cursor);
    expect(ids).toEqual(expectedInvoices);
    const wrong = await client.callTool({
      name: 'orb_sql',
      arguments: { connector_id: connectorId, query: 'SELECT id FROM invoice' },
    });
    expect(wrong.isError).toBe(true);
    expect(text(wrong)).toContain("Did you mean 'invoices'");
    await client.close();
  });

  it('answers a misspelt field with a tool error naming the field to fix', async () => {
    const client = await httpClient(await platform.token());
    const result = await client.callTool({
      name: 'orb_search',
      arguments: { connector_id: connectorId, entity: 'invoices', query: { filter: { eq: { stauts: 'paid' } } } },
    });
    expect(result.isError).toBe(true);
    const problem = JSON.parse(text(result).split('\n').at(-1)!) as {
      status: number;
      code: string;
      errors: { path: string; message: string }[];
    };
    expect(problem).toMatchObject({ status: 400, code: 'invalid_filter' });
    expect(problem.errors[0]!.path).toBe('/query/filter/eq/stauts');
    expect(problem.errors[0]!.message).toContain("Did you mean 'status'?");
    await client.close();
  });

  it('refuses a request without the bearer token (401 problem, as the HTTP API)', async () => {
    const response = await fetch(`${platform.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { code: string }).code).toBe('unauthorized');
  });
});

describe('MCP over stdio', () => {
  it('lists connectors, describes one, and cuts large answers to the budget with a cursor, never mid-record', async () => {
    const client = await stdioClient(700);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('orb_search');

    const listed = JSON.parse(text(await client.callTool({ name: 'list_connectors', arguments: {} }))) as {
      data: { connector_id: string; connector_type: string }[];
    };
    expect(listed.data).toEqual([expect.objectContaining({ connector_id: connectorId, connector_type: 'Orb' })]);

    const described = JSON.parse(
      text(
        await client.callTool({
          name: 'describe_connector',
          arguments: { connector_id: connectorId, entity: 'invoices' },
        }),
      ),
    ) as { search: { fields: { path: string; operators: string[] }[] }; examples: { tool: string }[] };
    expect(described.search.fields.find((f) => f.path === 'status')?.operators).toEqual(
      expect.arrayContaining(['eq', 'in', 'like']),
    );
    expect(described.search.fields.find((f) => f.path === 'total')?.operators).toContain('gt');
    expect(described.examples.map((e) => e.tool)).toEqual(expect.arrayContaining(['orb_execute', 'orb_search']));

    // The change feed, cut to the budget between events, continued with meta.cursor: the same events as the API.
    const seen: string[] = [];
    let after: string | undefined;
    for (let calls = 0; calls < 500; calls++) {
      const answer = JSON.parse(
        text(
          await client.callTool({
            name: 'changes',
            arguments: { connector_id: connectorId, entity: 'invoices', ...(after ? { after } : {}) },
          }),
        ),
      ) as { data: { id: string; type: string }[]; meta: { cursor: string; has_more: boolean } };
      seen.push(...answer.data.map((e) => e.id));
      after = answer.meta.cursor;
      if (!answer.meta.has_more) break;
    }
    const overHttp = (await (
      await platform.call('GET', `/api/v1/integrations/connectors/${connectorId}/changes?entity=invoices&limit=1000`)
    ).json()) as { data: { id: string }[] };
    expect(seen.length).toBeGreaterThan(1);
    expect(seen).toEqual(overHttp.data.map((e) => e.id));

    // One API page of every invoice, cut by the 700-character budget into several answers.
    const pages = await searchEveryPage(client, {
      connector_id: connectorId,
      entity: 'invoices',
      query: {},
      limit: 1000,
    });
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.some((p) => p.meta.cut_to_budget)).toBe(true);
    const ids = pages.flatMap((p) => p.data.map((r) => r.id));
    expect(ids.sort()).toEqual(expectedInvoices);
    for (const page of pages) expect(page.data.every((r) => typeof r.id === 'string')).toBe(true);

    const reused = await client.callTool({
      name: 'orb_search',
      arguments: { connector_id: connectorId, entity: 'customers', query: {}, cursor: pages[0]!.meta.cursor },
    });
    expect(reused.isError).toBe(true);
    expect(text(reused)).toContain('/cursor');
    await client.close();
  }, 60_000);

  it('returns live-action validation errors with the params path', async () => {
    const client = await stdioClient(24_000);
    const result = await client.callTool({
      name: 'orb_execute',
      arguments: { connector_id: connectorId, entity: 'invoices', action: 'list', params: { status: 'overdue' } },
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('/params/status');
    const live = answer(
      await client.callTool({
        name: 'orb_execute',
        arguments: { connector_id: connectorId, entity: 'invoices', action: 'list', params: { limit: 2 } },
      }),
    );
    expect(live.data).toHaveLength(2);
    await client.close();
  });
});
