import { envSuffix, findConnectorDefinition, literalDottedFields } from '@conduit/connectors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchAllIds, waitForEntity } from '../harness/connector-status.ts';
import { ALL_ENTITIES_AT_ONCE, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { SIMULATORS } from '../simulators/index.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';

/**
 * Every kind through the hosted HTTP API, against its simulator: every documented live action, the error
 * contract, and replication of every searchable entity (counts and ids equal the simulator's records).
 */
describe.each(Object.entries(SIMULATORS))('%s through the HTTP API', (connectorType, start) => {
  let sim: SimulatorHandle;
  let platform: TestPlatform;
  let connectorId: string;
  const catalog = findConnectorDefinition(connectorType)!.catalog;
  const execute = (body: unknown) =>
    platform.call('POST', `/api/v1/integrations/connectors/${connectorId}/execute`, body);

  beforeAll(async () => {
    sim = await start({ size: 12 });
    const suffix = envSuffix(connectorType);
    platform = await startTestPlatform({
      overrides: {
        baseUrls: { [suffix]: sim.baseUrl },
        tokenUrls: sim.tokenUrl ? { [suffix]: sim.tokenUrl } : {},
        // The simulators enforce no plan's limit here: paced at the vendor's documented rate (as low as 10 requests
        // a second), replicating every entity would spend most of this file waiting on the budget.
        rateLimits: { [suffix]: 1000 },
      },
      env: ALL_ENTITIES_AT_ONCE,
    });
    const response = await platform.call('POST', '/api/v1/integrations/connectors', {
      customer_name: 'conformance',
      connector_type: connectorType,
      name: connectorType,
      credentials: sim.credentials,
      config: sim.config,
      replication_config: sim.replicationConfig,
    });
    expect(response.status, await response.clone().text()).toBe(201);
    connectorId = ((await response.json()) as { connector_id: string }).connector_id;
  });
  afterAll(async () => {
    await platform?.close();
    await sim?.close();
  });

  // First: live actions may change the simulator's records (a create) or what it expects (a snapshot keyed by the
  // time it was served), and with every entity syncing at once the first sync may still be reading meanwhile.
  it('replicates every searchable entity: counts and ids equal the simulator’s records', async () => {
    const searchable = Object.values(catalog.entities).filter((e) => e.searchable && e.sync);
    for (const entity of searchable) {
      const expected = sim.expectedKeys(entity.name);
      const status = await waitForEntity(
        platform,
        connectorId,
        entity.name,
        (s) => s.status === 'ready' || s.status === 'failed',
        120_000,
      );
      expect(status.error, `${entity.name}`).toBeNull();
      expect(status.record_count, `${entity.name} count`).toBe(new Set(expected).size);
      // Snapshot entities (stats keyed by the time they were taken) get a new key on every read: count only.
      const stable = JSON.stringify(sim.expectedKeys(entity.name)) === JSON.stringify(expected);
      if (stable && entity.searchable?.[entity.recordKey]) {
        const ids = await searchAllIds(platform, connectorId, entity.name, entity.recordKey);
        expect(ids.sort(), `${entity.name} ids`).toEqual([...new Set(expected)].sort());
      }
    }
  }, 180_000);

  it('answers every documented live action', async () => {
    expect(sim.examples.length).toBeGreaterThan(0);
    for (const example of sim.examples) {
      const response = await execute(example);
      const label = `${example.entity} ${example.action}`;
      expect(response.status, `${label}: ${response.status === 200 ? '' : await response.clone().text()}`).toBeLessThan(
        300,
      );
      if (example.action === 'download') {
        expect((await response.arrayBuffer()).byteLength, label).toBeGreaterThan(0);
        continue;
      }
      const body = (await response.json()) as { data: unknown; meta?: Record<string, unknown> };
      expect(body, label).toHaveProperty('data');
      if (example.action === 'list') {
        expect(Array.isArray(body.data), label).toBe(true);
        for (const key of Object.keys(catalog.entities[example.entity]?.meta ?? {})) {
          expect(body.meta ?? {}, `${label} meta`).toHaveProperty(key);
        }
      }
    }
  });

  it('answers an unknown entity or action with 400 listing what is supported', async () => {
    const entity = await execute({ entity: 'nope', action: 'list' });
    expect(entity.status).toBe(400);
    const problem = (await entity.json()) as { code: string; errors: { path: string; message: string }[] };
    expect(problem.code).toBe('unsupported_action');
    expect(problem.errors[0]?.message).toContain(Object.keys(catalog.entities)[0]!);
    const first = Object.keys(catalog.entities)[0]!;
    const action = await execute({ entity: first, action: 'explode' });
    expect(action.status).toBe(400);
  });

  it('refuses credentials the upstream rejects at creation, naming /credentials', async () => {
    const response = await platform.call('POST', '/api/v1/integrations/connectors', {
      customer_name: 'conformance',
      connector_type: connectorType,
      name: `${connectorType}-bad`,
      credentials: sim.badCredentials,
      config: sim.config,
      replication_config: sim.replicationConfig,
    });
    expect(response.status).toBe(400);
    const problem = (await response.json()) as { errors: { path: string }[] };
    expect(problem.errors.map((e) => e.path)).toContain('/credentials');
  });

  it('keeps every field of a search result under the name the catalog gives it (literal dotted keys flat)', async () => {
    for (const entity of Object.values(catalog.entities).filter((e) => e.searchable && e.sync)) {
      await waitForEntity(platform, connectorId, entity.name, (st) => st.status === 'ready' || st.status === 'failed');
      const literal = new Set(literalDottedFields(entity));
      const names = new Set(
        Object.keys(entity.searchable!).map((field) => (literal.has(field) ? field : field.split('.')[0]!)),
      );
      const response = await execute({ entity: entity.name, action: 'search', params: { query: {}, limit: 20 } });
      expect(response.status, entity.name).toBe(200);
      const { data } = (await response.json()) as { data: Record<string, unknown>[] };
      for (const record of data) {
        for (const key of Object.keys(record)) expect(names.has(key), `${entity.name}: ${key}`).toBe(true);
      }
      // Not vacuous: where the catalog has literal dotted keys, the records show them under that name.
      for (const field of literal) {
        expect(
          data.some((record) => Object.hasOwn(record, field)),
          `${entity.name}: ${field}`,
        ).toBe(true);
      }
    }
  });
});
