/**
 * Builds the installable package: one ESM bundle per entry (the library and the `conduit-mcp` bin) for Node 20+.
 * The workspace packages it reads (the client, the kinds' catalogs, the search language's capabilities) are
 * bundled in, since no registry has them; the MCP SDK and zod stay dependencies.
 */
import { rm } from 'node:fs/promises';
import { build } from 'esbuild';

const packageDir = new URL('..', import.meta.url).pathname;
await rm(`${packageDir}dist`, { recursive: true, force: true });
await build({
  absWorkingDir: packageDir,
  entryPoints: { index: 'src/index.ts', stdio: 'src/stdio.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk/*', 'zod', 'zod/*'],
  logLevel: 'warning',
});
