import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForEntity } from '../harness/connector-status.ts';
import { createConnector, simulatorConnector } from '../harness/create-connector.ts';
import { closeInOrder, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { startGoogleAds } from '../simulators/google-ads/simulator.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';
import { startOrb } from '../simulators/orb/simulator.ts';

/**
 * The examples of docs/search.md, docs/sql.md and the README's "Try it", taken from the documents as written and
 * run against a platform with the Orb and Google Ads simulators (the local profile's kinds and credentials; only
 * its address and demo client are this platform's). Each must answer 2xx with the shape its document shows.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string) => readFileSync(`${root}/${file}`, 'utf8');

type Json = Record<string, unknown>;

/** The fenced blocks of a document with their info string (`json`, `ts readme-client`, or empty). */
function fencedBlocks(text: string): { info: string; body: string }[] {
  return [...text.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => ({ info: m[1]!.trim(), body: m[2]! }));
}

function section(text: string, heading: string): string {
  const start = text.indexOf(heading);
  if (start < 0) throw new Error(`no section ${heading}`);
  const next = text.indexOf('\n## ', start + heading.length);
  return text.slice(start, next < 0 ? undefined : next);
}

let orb: SimulatorHandle;
let ads: SimulatorHandle;
let platform: TestPlatform;
let orbId: string;
let adsId: string;

beforeAll(async () => {
  orb = await startOrb({ size: 4 });
  ads = await startGoogleAds({ size: 1 });
  platform = await startTestPlatform({
    overrides: {
      baseUrls: { ORB: orb.baseUrl, GOOGLE_ADS: ads.baseUrl },
      tokenUrls: { GOOGLE_ADS: ads.tokenUrl! },
    },
  });
  orbId = await createConnector(platform, simulatorConnector(orb, 'docs'));
  adsId = await createConnector(platform, simulatorConnector(ads, 'docs'));
  await waitForEntity(platform, orbId, 'invoices', (s) => s.status === 'ready' && !s.running);
  await waitForEntity(platform, adsId, 'campaigns', (s) => s.status === 'ready' && !s.running);
}, 180_000);

afterAll(() => closeInOrder(platform, orb, ads));

async function execute(connectorId: string, body: unknown): Promise<Json> {
  const response = await platform.call('POST', `/api/v1/integrations/connectors/${connectorId}/execute`, body);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as Json;
}

describe('docs/search.md', () => {
  const blocks = fencedBlocks(read('docs/search.md')).filter((b) => b.info === 'json');
  const all = blocks.map((b) => JSON.parse(b.body) as Json);
  /** A search by meaning needs a kind with embedded fields: test/e2e/search-semantic.test.ts runs that example. */
  const byMeaning = (b: Json) => JSON.stringify(b).includes('"semantic"');
  const json = all.filter((b) => !byMeaning(b));

  it('has the examples this test runs, each routed to a connector and entity below', () => {
    expect(json.map((b) => ('entity' in b ? 'request' : 'data' in b ? 'answer' : 'params'))).toEqual([
      'request',
      'answer',
      'params',
      'params',
    ]);
    expect(all.filter(byMeaning)).toHaveLength(1);
  });

  it('answers the first example with the documented answer’s shape, holding only the fields asked for', async () => {
    const [request, documented] = json as [Json & { params: { fields: string[] } }, Json & { meta: Json }];
    const answer = (await execute(orbId, request)) as { data: Json[]; meta: Json };
    expect(answer.data.length).toBeGreaterThan(0);
    const topLevel = new Set(request.params.fields.map((f) => f.split('.')[0]));
    for (const record of answer.data) expect([...Object.keys(record)].every((k) => topLevel.has(k))).toBe(true);
    expect(answer.data.some((record) => 'subscription' in record)).toBe(true);
    expect(Object.keys(answer.meta)).toEqual(expect.arrayContaining(Object.keys(documented.meta)));
    expect(answer.meta.total).toMatchObject({ value: expect.any(Number), exact: true });
  });

  it('answers the billing dashboard (Orb invoices) with every named aggregation', async () => {
    const params = json[2]!;
    const answer = (await execute(orbId, { entity: 'invoices', action: 'search', params })) as {
      data: Json[];
      meta: { aggregations: Json };
    };
    expect(answer.data).toEqual([]);
    expect(Object.keys(answer.meta.aggregations).sort()).toEqual(Object.keys(params.aggregate as Json).sort());
    expect((answer.meta.aggregations.by_status as unknown[]).length).toBeGreaterThan(0);
  });

  it('answers the advertising dashboard (Google Ads campaigns) with every named aggregation', async () => {
    const params = json[3]!;
    const answer = (await execute(adsId, { entity: 'campaigns', action: 'search', params })) as {
      meta: { aggregations: Json };
    };
    expect(Object.keys(answer.meta.aggregations).sort()).toEqual(Object.keys(params.aggregate as Json).sort());
    expect(answer.meta.aggregations.clicks).toMatchObject({ value: expect.anything() });
  });
});

describe('docs/sql.md', () => {
  /** The blocks that show a request (`POST …/sql` then its JSON body) and its answer (`200 {...}`). */
  const exchanges = fencedBlocks(read('docs/sql.md'))
    .filter((b) => b.info === '' && b.body.startsWith('POST /api/v1/integrations/connectors/{id}/sql'))
    .map((b) => {
      const [, request = '', answer = ''] = /^POST [^\n]+\n([\s\S]*?)\n\n(\d{3} [\s\S]*)$/.exec(b.body) ?? [];
      return { request, answer };
    });

  it('answers every documented query with the documented columns and row keys', async () => {
    expect(exchanges.length).toBeGreaterThan(0);
    for (const { request, answer } of exchanges) {
      // The documented cursor is a placeholder (`<meta.cursor of the previous page>`): a first page has none.
      const body = JSON.parse(request) as Json;
      if (typeof body.cursor === 'string' && body.cursor.startsWith('<')) delete body.cursor;
      const response = await platform.call('POST', `/api/v1/integrations/connectors/${orbId}/sql`, body);
      expect(response.status, await response.clone().text()).toBe(Number(answer.slice(0, 3)));
      const got = (await response.json()) as { data: Json[]; meta: { columns: { name: string; type: string }[] } };
      const columns = [...answer.matchAll(/\{"name": "(\w+)", "type": "(\w+)"\}/g)].map((m) => ({
        name: m[1],
        type: m[2],
      }));
      expect(got.meta.columns).toEqual(columns);
      expect(got.data.length).toBeGreaterThan(0);
      for (const row of got.data) expect(Object.keys(row)).toEqual(columns.map((c) => c.name));
    }
  });
});

describe('README "Try it"', () => {
  it('runs each curl of the block in order: every answer is 2xx, and each jq path it reads is there', async () => {
    const block = fencedBlocks(section(read('README.md'), '## Try it'))[0]!.body;
    const variables: Record<string, string> = {};
    let calls = 0;
    for (const statement of shellStatements(block)) {
      if (!statement.includes('curl ')) continue;
      const assignment = /^(\w+)=\$\(([\s\S]*)\)$/.exec(statement);
      const [command = '', jq] = (assignment ? assignment[2]! : statement).split(/\s\|\s*jq\s+(?:-r\s+)?/);
      const request = curlRequest(tokens(command, variables), platform);
      const response = await fetch(request.url, request.init);
      expect(response.status, `${statement}\n${await response.clone().text()}`).toBeLessThan(300);
      const answer = (await response.json()) as Json;
      if (jq !== undefined) {
        const value = jq
          .trim()
          .split('.')
          .filter(Boolean)
          .reduce<unknown>((v, k) => (v as Json | undefined)?.[k], answer);
        expect(value, `${jq} of ${statement}`).toBeDefined();
        if (assignment) variables[assignment[1]!] = String(value);
      }
      calls++;
    }
    expect(calls).toBe(5);
    expect(variables.ID).toBeDefined();
  });
});

/** The block's commands: comments and `./dev start` dropped, continued lines and quoted newlines joined. */
function shellStatements(block: string): string[] {
  const statements: string[] = [];
  let current = '';
  let quote: string | null = null;
  for (let i = 0; i < block.length; i++) {
    const ch = block[i]!;
    if (quote) {
      if (ch === quote) quote = null;
      current += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      current += ch;
    } else if (ch === '\\' && block[i + 1] === '\n') {
      i++;
    } else if (ch === '#' && (current === '' || /\s$/.test(current))) {
      while (i < block.length && block[i] !== '\n') i++;
      i--;
    } else if (ch === '\n') {
      if (current.trim()) statements.push(current.trim());
      current = '';
    } else {
      current += ch;
    }
  }
  if (current.trim()) statements.push(current.trim());
  return statements.filter((s) => !s.startsWith('./dev'));
}

/** Shell words: quotes removed, `$NAME` expanded outside single quotes. */
function tokens(command: string, variables: Record<string, string>): string[] {
  const words: string[] = [];
  const re = /'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g;
  const expand = (text: string) => text.replaceAll(/\$(\w+)/g, (_, name: string) => variables[name] ?? '');
  for (const m of command.matchAll(re)) words.push(m[1] ?? expand(m[2] ?? m[3] ?? ''));
  return words;
}

/** The fetch a `curl -s URL -H … -d …` makes: a POST when it sends data, form-encoded unless a content type says. */
function curlRequest(words: string[], on: TestPlatform): { url: string; init: RequestInit } {
  const headers = new Headers();
  const data: string[] = [];
  let url = '';
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (word === '-s') continue;
    if (word === '-H') {
      const [name, ...value] = words[++i]!.split(':');
      headers.set(name!.trim(), value.join(':').trim());
    } else if (word === '-d') data.push(words[++i]!);
    else url = word.replace('localhost:8080', on.url);
  }
  if (data.length === 0) return { url, init: { headers } };
  if (!headers.has('content-type')) headers.set('content-type', 'application/x-www-form-urlencoded');
  const body = headers.get('content-type') === 'application/x-www-form-urlencoded' ? formOf(data, on) : data.join('&');
  return { url, init: { method: 'POST', headers, body } };
}

/** The demo client's form, with this platform's client in place of the local profile's. */
function formOf(data: string[], on: TestPlatform): string {
  const form = new URLSearchParams(data.join('&'));
  if (form.get('client_id') === 'demo-client') {
    form.set('client_id', on.clientId);
    form.set('client_secret', on.clientSecret);
  }
  return form.toString();
}
