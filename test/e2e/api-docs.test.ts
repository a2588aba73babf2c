import { documentedOperations } from '@conduit/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';
import { startOrb } from '../simulators/orb/simulator.ts';

describe('the API reference', () => {
  let sim: SimulatorHandle;
  let platform: TestPlatform;
  let connectorId: string;

  beforeAll(async () => {
    sim = await startOrb({ size: 5 });
    platform = await startTestPlatform({ overrides: { baseUrls: { ORB: sim.baseUrl }, tokenUrls: {} }, worker: false });
    const created = await platform.call('POST', '/api/v1/integrations/connectors', {
      customer_name: 'docs',
      connector_type: 'Orb',
      name: 'docs',
      credentials: sim.credentials,
      replication_config: sim.replicationConfig,
    });
    connectorId = ((await created.json()) as { connector_id: string }).connector_id;
  });
  afterAll(async () => {
    await platform?.close();
    await sim?.close();
  });

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
    const page = await fetch(`${platform.url}/docs`);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('/api/v1/integrations/connectors/{connector_id}/execute');
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
