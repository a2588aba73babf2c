import { documentedOperations, openApiDocument } from '@conduit/api';
import { CONNECTOR_DEFINITIONS, entityActions } from '@conduit/connectors';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnector } from '../harness/create-connector.ts';
import { orbSettings, startOrbPlatform } from '../harness/orb-connector.ts';
import { closeInOrder, type TestPlatform } from '../harness/platform.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';

describe('the API reference', () => {
  let sim: SimulatorHandle;
  let platform: TestPlatform;
  let connectorId: string;

  beforeAll(async () => {
    ({ sim, platform } = await startOrbPlatform({ size: 5, worker: false }));
    connectorId = await createConnector(platform, { customer_name: 'docs', name: 'docs', ...orbSettings(sim) });
  });
  afterAll(() => closeInOrder(platform, sim));

  it('serves OpenAPI 3.1 with every route, and an HTML reference', async () => {
    const document = (await (await fetch(`${platform.url}/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, object>;
    };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/oauth/token',
        '/api/v1/integrations/connectors',
        '/api/v1/integrations/connectors/{connector_id}',
        '/api/v1/integrations/connectors/{connector_id}/execute',
      ]),
    );
    // Scalar's reference page, its script served by the API itself: no CDN, nothing from elsewhere.
    const page = await fetch(`${platform.url}/docs`);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('/openapi.json');
    expect(html).toContain('/docs/scalar.js');
    expect(html).not.toMatch(/<(script|link)[^>]+(src|href)="https?:/);
    const script = await fetch(`${platform.url}/docs/scalar.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toContain('javascript');
    expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    const plain = await fetch(`${platform.url}/docs/plain`);
    expect(await plain.text()).toContain('/api/v1/integrations/connectors/{connector_id}/execute');
  });

  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator), the same served and built', async () => {
    const served = (await (await fetch(`${platform.url}/openapi.json`)).json()) as OpenApi;
    const validator = new Validator();
    const result = await validator.validate(served as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? [], JSON.stringify(result.errors ?? []).slice(0, 2000)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    // The served document is generated from the mounted routes; the static one from the same definitions.
    expect(served).toEqual(openApiDocument());
    const operations = (doc: OpenApi) =>
      Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m} ${path}`));
    expect(operations(served).sort()).toEqual(
      documentedOperations()
        .map((o) => `${o.method} ${o.path}`)
        .sort(),
    );
  });

  it('shows a create body per connector kind and an execute body per entity and action', async () => {
    const doc = (await (await fetch(`${platform.url}/openapi.json`)).json()) as OpenApi;
    const schemas = doc.components.schemas;
    const createBody = doc.paths['/api/v1/integrations/connectors']?.post?.requestBody?.content['application/json'];
    const kinds = (schemas.CreateConnectorRequest?.anyOf ?? []).map((b) => b.$ref);
    expect(
      doc.paths['/api/v1/integrations/connectors/{connector_id}/execute']?.post?.requestBody?.content[
        'application/json'
      ]?.schema?.$ref,
    ).toBe('#/components/schemas/ExecuteRequest');
    expect(createBody?.schema?.$ref).toBe('#/components/schemas/CreateConnectorRequest');
    expect(kinds).toHaveLength(CONNECTOR_DEFINITIONS.length);
    for (const { catalog } of CONNECTOR_DEFINITIONS) {
      const name = catalog.connectorType.replaceAll('-', '');
      const create = schemas[`Create${name}Connector`];
      expect(kinds, catalog.connectorType).toContain(`#/components/schemas/Create${name}Connector`);
      expect(create?.properties?.connector_type?.enum ?? [create?.properties?.connector_type?.const]).toEqual([
        catalog.connectorType,
      ]);
      expect(create?.required).toEqual(expect.arrayContaining(['credentials', 'replication_config']));
      // Credentials are the kind's own (not an untyped object): some property is named.
      expect(JSON.stringify(create?.properties?.credentials)).toMatch(/"properties":\{"\w+/);

      const branches = (schemas.ExecuteRequest?.anyOf ?? [])
        .map((b) => b.description ?? '')
        .filter((d) => d.startsWith(`${catalog.connectorType}: `))
        .map((d) => d.slice(catalog.connectorType.length + 2));
      const expected = Object.values(catalog.entities).flatMap((e) => entityActions(e).map((a) => `${e.name}.${a}`));
      expect(branches.sort(), catalog.connectorType).toEqual(expected.sort());
    }
    // Orb's customers.get takes customer_id; search params are the search language's schema.
    const orb = (schemas.ExecuteRequest?.anyOf ?? []).filter((b) => b.description?.startsWith('Orb: '));
    const get = orb.find((b) => b.description === 'Orb: customers.get');
    expect(get?.properties?.params?.required).toEqual(['customer_id']);
    const search = orb.find((b) => b.description === 'Orb: customers.search');
    expect(search?.properties?.params?.$ref).toBe('#/components/schemas/SearchParams');
  });

  it('documents a create example for every connector kind', () => {
    const create = documentedOperations().find(
      (o) => o.method === 'post' && o.path === '/api/v1/integrations/connectors',
    );
    const kinds = new Set((create?.examples ?? []).map((e) => (e.value as { connector_type: string }).connector_type));
    expect(kinds.size).toBeGreaterThan(0);
    for (const example of create?.examples ?? []) expect(create?.request?.safeParse(example.value).success).toBe(true);
  });

  it('answers every documented example with a documented status and response shape', async () => {
    let sent = 0;
    for (const operation of documentedOperations()) {
      for (const example of operation.examples ?? [{ summary: 'no body', value: undefined }]) {
        const path = operation.path.replace('{connector_id}', connectorId);
        const response =
          operation.path === '/api/v1/oauth/token'
            ? await fetch(`${platform.url}${path}`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify(example.value),
              })
            : await platform.call(operation.method.toUpperCase(), path, example.value);
        const label = `${operation.method} ${operation.path} (${example.summary})`;
        expect(Object.keys(operation.responses).map(Number), label).toContain(response.status);
        const schema = operation.responses[response.status];
        if (schema) {
          const parsed = schema.safeParse(await response.json());
          expect(parsed.success, `${label}: ${parsed.error?.message}`).toBe(true);
        }
        sent++;
      }
    }
    expect(sent).toBeGreaterThan(5);
  });
});

interface JsonSchemaNode {
  $ref?: string;
  description?: string;
  anyOf?: JsonSchemaNode[];
  enum?: string[];
  const?: string;
  required?: string[];
  properties?: Record<string, JsonSchemaNode>;
}

interface OpenApi {
  paths: Record<
    string,
    Record<string, { requestBody?: { content: Record<string, { schema?: JsonSchemaNode }> } } | undefined>
  >;
  components: { schemas: Record<string, JsonSchemaNode | undefined> };
}
