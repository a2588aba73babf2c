import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from './document.ts';

describe('docs/api.md', () => {
  it('names every operation of the OpenAPI document in its endpoint table, and none that does not exist', () => {
    const paths = openApiDocument().paths as Record<string, Record<string, unknown>>;
    const served = Object.entries(paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const doc = readFileSync(new URL('../../../../docs/api.md', import.meta.url), 'utf8');
    const table = doc.slice(doc.indexOf('## Endpoints'), doc.indexOf('### The connector'));
    const documented = table
      .split('\n')
      .filter((line) => /^\| [A-Z, ]+ \|/.test(line))
      .flatMap((line) => {
        const [, methods = '', cell = ''] = line.split('|');
        const rowPaths = [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
        return methods
          .split(',')
          .map((m) => m.trim())
          .flatMap((method) => rowPaths.map((path) => `${method} ${path}`));
      });
    expect(served.filter((operation) => !documented.includes(operation))).toEqual([]);
    // Beyond the document, the table names only the routes that are not in it: MCP, the console and the docs.
    const undocumented = ['POST /mcp', 'GET /console', 'GET /openapi.json', 'GET /docs'];
    expect(documented.filter((operation) => !served.includes(operation) && !undocumented.includes(operation))).toEqual(
      [],
    );
  });
});
