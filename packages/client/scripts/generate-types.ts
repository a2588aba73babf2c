/**
 * Generates packages/client/src/generated/catalog.ts from the connector catalog (packages/connectors): connector
 * types, entities per kind, actions per entity, params per action (from the zod schemas, through JSON Schema),
 * record types, and the per-entity maps the typed search filter is built from (see src/search-types.ts); and
 * packages/client/src/generated/api.ts, the API's response bodies, from its OpenAPI document.
 *
 *   node packages/client/scripts/generate-types.ts           write the file
 *   node packages/client/scripts/generate-types.ts --check   exit 1 when the checked-in file is stale (./dev test)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildApiSource } from './api-source.ts';
import { buildCatalogSource } from './catalog-source.ts';

const targets = [
  {
    file: fileURLToPath(new URL('../src/generated/catalog.ts', import.meta.url)),
    from: 'the connector catalog',
    build: buildCatalogSource,
  },
  {
    file: fileURLToPath(new URL('../src/generated/api.ts', import.meta.url)),
    from: 'the OpenAPI document',
    build: buildApiSource,
  },
];

let stale = false;
for (const target of targets) {
  // Each builder formats its own output (biome for what json-schema-to-typescript writes), so that `biome check` and
  // the staleness check agree.
  const source = await target.build(target.file);
  if (!process.argv.includes('--check')) {
    writeFileSync(target.file, source);
    console.log(`wrote ${target.file}`);
    continue;
  }
  let current = '';
  try {
    current = readFileSync(target.file, 'utf8');
  } catch {
    // missing counts as stale
  }
  if (current !== source) {
    console.error(
      `${target.file} is stale: ${target.from} changed. Run: node packages/client/scripts/generate-types.ts`,
    );
    stale = true;
  }
}
if (stale) process.exit(1);
if (process.argv.includes('--check'))
  console.log('client types are up to date with the catalog and the OpenAPI document');
