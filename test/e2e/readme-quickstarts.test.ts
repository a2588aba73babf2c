import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OrbConnectorFixture, startOrbConnector } from '../harness/orb-connector.ts';
import type { TestPlatform } from '../harness/platform.ts';

/**
 * The README's quickstarts for the typed client and the MCP server, run as written (only the local profile's
 * address and demo credentials are replaced by this test platform's) against an Orb connector.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
let platform: TestPlatform;
let fixture: OrbConnectorFixture;
let connectorId: string;
let paidInvoices: string[];

function snippet(tag: string): string {
  const readme = readFileSync(`${root}/README.md`, 'utf8');
  const match = new RegExp(`\`\`\`ts ${tag}\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!match) throw new Error(`README has no \`\`\`ts ${tag} block`);
  return match[1]!;
}

/** Runs a snippet as a module beside this test (so its imports resolve from the workspace) and returns stdout. */
async function runSnippet(tag: string): Promise<string> {
  const code = snippet(tag)
    .replaceAll('http://localhost:8080', platform.url)
    .replaceAll("'demo-client'", `'${platform.clientId}'`)
    .replaceAll("'demo-secret-change-me'", `'${platform.clientSecret}'`);
  const file = fileURLToPath(new URL(`./.readme-${tag}-${randomBytes(4).toString('hex')}.ts`, import.meta.url));
  writeFileSync(file, code);
  try {
    const { stdout } = await run(process.execPath, [file], { cwd: root, timeout: 60_000, env: process.env });
    return stdout;
  } finally {
    rmSync(file, { force: true });
  }
}

beforeAll(async () => {
  fixture = await startOrbConnector();
  ({ platform, connectorId } = fixture);
  const orb = fixture.conduit.connector(connectorId, 'Orb');
  paidInvoices = [];
  for await (const i of orb.searchAll('invoices', { query: { filter: { eq: { status: 'paid' } } }, fields: ['id'] })) {
    paidInvoices.push(i.id!);
  }
}, 180_000);

afterAll(async () => {
  await fixture?.close();
});

describe('README quickstarts', () => {
  it('the typed client example prints every paid invoice', async () => {
    const lines = (await runSnippet('readme-client')).trim().split('\n').filter(Boolean);
    expect(paidInvoices.length).toBeGreaterThan(0);
    expect(lines.map((l) => l.split(' ')[0]).sort()).toEqual([...paidInvoices].sort());
  });

  it('the MCP example lists the tools and the connectors over stdio', async () => {
    const out = await runSnippet('readme-mcp');
    expect(out).toContain('orb_search');
    expect(out).toContain(connectorId);
  });
});
