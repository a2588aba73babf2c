/**
 * Generates packages/client/src/generated/catalog.ts from the connector catalog (packages/connectors): connector
 * types, entities per kind, actions per entity, params per action (from the zod schemas, through JSON Schema),
 * record types, and the per-entity maps the typed search filter is built from (see src/search-types.ts).
 *
 *   node packages/client/scripts/generate-types.ts           write the file
 *   node packages/client/scripts/generate-types.ts --check   exit 1 when the checked-in file is stale (./dev test)
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildCatalogSource } from './catalog-source.ts';

const target = fileURLToPath(new URL('../src/generated/catalog.ts', import.meta.url));
const biome = fileURLToPath(new URL('../../../node_modules/.bin/biome', import.meta.url));

const raw = await buildCatalogSource();
// Formatted like every other file, so that `biome check` and the staleness check agree.
const source = execFileSync(biome, ['format', `--stdin-file-path=${target}`], { input: raw, encoding: 'utf8' });

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // missing counts as stale
  }
  if (current !== source) {
    console.error(
      `${target} is stale: the connector catalog changed. Run: node packages/client/scripts/generate-types.ts`,
    );
    process.exit(1);
  }
  console.log('client types are up to date with the catalog');
} else {
  writeFileSync(target, source);
  console.log(`wrote ${target}`);
}
