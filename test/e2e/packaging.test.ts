import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OrbConnectorFixture, startOrbConnector } from '../harness/orb-connector.ts';

/**
 * The two packages people outside this repository install: packed the way a release packs them (`pnpm pack`,
 * which runs their prepack build), installed from the tarballs into a folder outside the workspace with npm, and
 * used there as a stranger would: a TypeScript consumer type-checked against the shipped declarations and run,
 * and the `conduit-mcp` bin driven over stdio, each on the machine's Node 20 and on Node 24.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const NODE_20 = '/usr/bin/node';
const runtimes = [
  { name: 'Node 20', node: NODE_20 },
  { name: 'Node 24', node: process.execPath },
];

let fixture: OrbConnectorFixture;
let consumer: string;
let paidInvoices: string[];

/** The consumer's code: typed calls only a correct declaration file lets through, and one it must refuse. */
const CONSUMER = `import { Conduit, isConduitProblem } from '@conduit/client';

declare const process: { argv: string[] };
const [baseUrl, clientId, clientSecret, connectorId] = process.argv.slice(2) as [string, string, string, string];
const conduit = new Conduit({ baseUrl, clientId, clientSecret });
const orb = conduit.connector(connectorId, 'Orb');
const paid: string[] = [];
for await (const invoice of orb.searchAll('invoices', { query: { filter: { eq: { status: 'paid' } } }, fields: ['id'] })) {
  const id: string | undefined = invoice.id;
  if (id) paid.push(id);
}
let problem = '';
try {
  await orb.execute({ entity: 'invoices', action: 'search', params: { query: { filter: { eq: { nope: 1 } } } } as never });
} catch (error) {
  if (isConduitProblem(error)) problem = \`\${error.status} \${error.code}\`;
}
console.log(JSON.stringify({ paid: paid.sort(), problem }));
`;

const MISUSE = `import { Conduit } from '@conduit/client';

const orb = new Conduit({ baseUrl: 'http://localhost' }).connector('c', 'Orb');
// @ts-expect-error: Orb has no entity named 'nope', and the shipped types know it
orb.searchAll('nope', { query: {} });
`;

beforeAll(async () => {
  const { stdout: version } = await run(NODE_20, ['--version']).catch(() => ({ stdout: 'none' }));
  if (!version.startsWith('v20.')) throw new Error(`${NODE_20} should be the machine's Node 20, is ${version.trim()}`);

  const work = mkdtempSync(join(tmpdir(), 'conduit-packages-'));
  const packs = join(work, 'packs');
  for (const pkg of ['client', 'mcp']) {
    await run('pnpm', ['pack', '--pack-destination', packs], { cwd: join(root, 'packages', pkg), timeout: 120_000 });
  }
  consumer = join(work, 'consumer');
  mkdirSync(consumer);
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({
      name: 'consumer',
      private: true,
      type: 'module',
      dependencies: {
        '@conduit/client': `file:${join(packs, 'conduit-client-0.1.0.tgz')}`,
        '@conduit/mcp': `file:${join(packs, 'conduit-mcp-0.1.0.tgz')}`,
      },
    }),
  );
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
    cwd: consumer,
    timeout: 170_000,
  });
  fixture = await startOrbConnector();
  paidInvoices = [];
  const orb = fixture.conduit.connector(fixture.connectorId, 'Orb');
  for await (const i of orb.searchAll('invoices', { query: { filter: { eq: { status: 'paid' } } }, fields: ['id'] })) {
    paidInvoices.push(i.id!);
  }
}, 360_000);

afterAll(async () => {
  await fixture?.close();
  if (consumer) rmSync(join(consumer, '..'), { recursive: true, force: true });
});

describe('installable packages', () => {
  it('ship built JavaScript and declarations only, and name no workspace package as a dependency', () => {
    for (const pkg of ['client', 'mcp']) {
      const manifest = JSON.parse(readFileSync(join(consumer, 'node_modules/@conduit', pkg, 'package.json'), 'utf8'));
      // TypeScript sources are the workspace's entry points; a package outside it gets JavaScript (and .d.ts).
      expect(JSON.stringify([manifest.exports, manifest.bin ?? {}])).not.toMatch(/(?<!\.d)\.ts"/);
      expect(Object.keys(manifest.dependencies ?? {}).filter((d) => d.startsWith('@conduit/'))).toEqual([]);
      expect(manifest.engines.node).toBe('>=20');
    }
    const client = JSON.parse(readFileSync(join(consumer, 'node_modules/@conduit/client/package.json'), 'utf8'));
    expect(client.dependencies ?? {}).toEqual({});
  });

  it('type-check a consumer against the shipped declarations, and refuse a misuse', async () => {
    writeFileSync(join(consumer, 'consumer.ts'), CONSUMER);
    writeFileSync(join(consumer, 'misuse.ts'), MISUSE);
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2022', 'DOM', 'DOM.Iterable'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          types: [],
          strict: true,
          skipLibCheck: false,
          outDir: 'out',
        },
        files: ['consumer.ts', 'misuse.ts'],
      }),
    );
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const checked = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: consumer }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
    expect(checked).toBe('');
  });

  for (const { name, node } of runtimes) {
    it(`the client runs on ${name}: every paid invoice, and problems as typed errors`, async () => {
      const { platform, connectorId } = fixture;
      const args = [join(consumer, 'out/consumer.js'), platform.url, platform.clientId, platform.clientSecret];
      const { stdout } = await run(node, [...args, connectorId], { cwd: consumer, timeout: 60_000 });
      const answer = JSON.parse(stdout) as { paid: string[]; problem: string };
      expect(paidInvoices.length).toBeGreaterThan(0);
      expect(answer.paid).toEqual([...paidInvoices].sort());
      expect(answer.problem).toBe('400 invalid_filter');
    });

    it(`the conduit-mcp bin answers initialize, tools/list and a search over stdio on ${name}`, async () => {
      const { platform, connectorId } = fixture;
      const bin = realpathSync(join(consumer, 'node_modules/.bin/conduit-mcp'));
      expect(bin).toContain(join('node_modules', '@conduit', 'mcp', 'dist'));
      const agent = new Client({ name: 'packaging-test', version: '1.0.0' });
      await agent.connect(
        new StdioClientTransport({
          command: node,
          args: [bin],
          cwd: consumer,
          env: {
            PATH: process.env.PATH ?? '',
            CONDUIT_URL: platform.url,
            CONDUIT_CLIENT_ID: platform.clientId,
            CONDUIT_CLIENT_SECRET: platform.clientSecret,
          },
        }),
      );
      try {
        expect(agent.getServerVersion()?.name).toBe('conduit');
        const tools = (await agent.listTools()).tools.map((t) => t.name);
        expect(tools).toEqual(expect.arrayContaining(['list_connectors', 'orb_search']));
        const result = await agent.callTool({
          name: 'orb_search',
          arguments: {
            connector_id: connectorId,
            entity: 'invoices',
            query: { filter: { eq: { status: 'paid' } } },
            fields: ['id'],
            limit: 1000,
          },
        });
        expect(result.isError).toBeFalsy();
        const text = (result.content as { type: string; text: string }[])[0]!.text;
        const ids = (JSON.parse(text) as { data: { id: string }[] }).data.map((r) => r.id);
        expect(ids.sort()).toEqual([...paidInvoices].sort());
      } finally {
        await agent.close();
      }
    });
  }
});
