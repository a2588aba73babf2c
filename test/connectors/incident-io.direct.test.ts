import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { entityActions } from '../../packages/connectors/src/core/catalog.ts';
import { connectWith } from '../../packages/connectors/src/core/connect.ts';
import type { ConnectorSettings } from '../../packages/connectors/src/core/define-connector.ts';
import { ConnectorError, UpstreamError } from '../../packages/connectors/src/core/errors.ts';
import { incidentIoCatalog } from '../../packages/connectors/src/kinds/incident-io/catalog.ts';
import { incidentIoConnector } from '../../packages/connectors/src/kinds/incident-io/connector.ts';
import type { IncidentIoData } from '../simulators/incident-io/data.ts';
import { startIncidentIo, tooManyRequests } from '../simulators/incident-io/simulator.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';

const FAST_RETRY = { maxAttempts: 6, baseDelayMs: 5, maxDelayMs: 20, maxWaitMs: 5_000 };

async function failure(promise: Promise<unknown>): Promise<ConnectorError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectorError);
  return error as ConnectorError;
}

async function collect(iterable: AsyncIterable<{ records: Record<string, unknown>[]; checkpoint: unknown }>) {
  const pages: { ids: string[]; checkpoint: unknown }[] = [];
  for await (const page of iterable)
    pages.push({ ids: page.records.map((r) => String(r.id)), checkpoint: page.checkpoint });
  return pages;
}

describe('Incident-Io in direct mode', () => {
  let sim: SimulatorHandle & { data: IncidentIoData };
  // 300 incidents: replication reads 250 per page, alerts and escalations 50 per page, so each spans pages.
  beforeAll(async () => {
    sim = await startIncidentIo({ size: 300 });
  });
  afterAll(() => sim.close());

  const incidentIo = (settings: ConnectorSettings = {}, credentials: Record<string, unknown> = sim.credentials) =>
    connectWith(incidentIoConnector, credentials, sim.config, { baseUrl: sim.baseUrl, ...settings });

  it('answers every example call with data, and paginated lists with {after, page_size}', async () => {
    const connector = incidentIo();
    const covered = new Set(sim.examples.map((e) => `${e.entity}.${e.action}`));
    for (const entity of Object.values(incidentIoCatalog.entities)) {
      for (const action of Object.keys(entity.actions)) expect(covered).toContain(`${entity.name}.${action}`);
    }
    for (const example of sim.examples) {
      const result = await connector.execute(example);
      if (result.type !== 'json') throw new Error('expected json');
      if (example.action === 'list') {
        expect((result.body.data as unknown[]).length, example.entity).toBeGreaterThan(0);
        if (incidentIoCatalog.entities[example.entity]?.meta) {
          expect(Object.keys(result.body.meta ?? {}).sort(), example.entity).toEqual(['after', 'page_size']);
        }
      } else {
        expect((result.body.data as { id: string }).id).toBe(example.params.id);
      }
    }
  });

  it('pages incidents with after until the last page, and maps slack_* to the neutral chat_* fields', async () => {
    const connector = incidentIo();
    const ids: string[] = [];
    let after: unknown;
    for (let guard = 0; guard < 10; guard++) {
      const result = await connector.execute({
        entity: 'incidents',
        action: 'list',
        params: { page_size: 120, ...(after ? { after } : {}) },
      });
      if (result.type !== 'json') throw new Error('expected json');
      const data = result.body.data as Record<string, unknown>[];
      expect(data[0]?.chat_channel_name).toBe(data[0]?.slack_channel_name);
      ids.push(...data.map((r) => String(r.id)));
      expect(result.body.meta?.page_size).toBe(120);
      after = result.body.meta?.after;
      if (after === null) break;
    }
    expect(ids).toEqual(sim.data.incidents.map((r) => r.id));
  });

  it('gets an incident by its numeric reference', async () => {
    const incident = sim.data.incidents[3]!;
    const number = String(incident.reference).replace('INC-', '');
    const result = await incidentIo().execute({ entity: 'incidents', action: 'get', params: { id: number } });
    if (result.type !== 'json') throw new Error('expected json');
    expect((result.body.data as { id: string }).id).toBe(incident.id);
  });

  it('maps an unknown id to upstream_not_found', async () => {
    const error = await failure(incidentIo().execute({ entity: 'alerts', action: 'get', params: { id: 'nope/../x' } }));
    expect(error.code).toBe('upstream_not_found');
  });

  const required = Object.values(incidentIoCatalog.entities).flatMap((entity) =>
    Object.entries(entity.actions).flatMap(([action, schema]) =>
      Object.keys(schema.shape)
        .filter((name) => !(schema.shape[name] as z.ZodType).safeParse(undefined).success)
        .map((name) => ({ entity: entity.name, action, name })),
    ),
  );

  it.each(required)(
    '$entity $action without $name is invalid_params at /params/$name',
    async ({ entity, action, name }) => {
      const error = await failure(incidentIo().execute({ entity, action, params: {} }));
      expect(error.code).toBe('invalid_params');
      expect(error.errors.map((e) => e.path)).toContain(`/params/${name}`);
      const empty = await failure(incidentIo().execute({ entity, action, params: { [name]: '' } }));
      expect(empty.errors.map((e) => e.path)).toContain(`/params/${name}`);
    },
  );

  const bounds = [
    { entity: 'incidents', max: 250 },
    { entity: 'alerts', max: 50 },
    { entity: 'escalations', max: 50 },
    { entity: 'users', max: 250 },
    { entity: 'incident_updates', max: 250 },
    { entity: 'schedules', max: 250 },
  ];

  it.each(bounds)('rejects $entity page_size above $max and below 1 at /params/page_size', async ({ entity, max }) => {
    for (const page_size of [max + 1, 0, 2.5]) {
      const error = await failure(incidentIo().execute({ entity, action: 'list', params: { page_size } }));
      expect(error.code).toBe('invalid_params');
      expect(error.errors.map((e) => e.path)).toEqual(['/params/page_size']);
    }
    const ok = await incidentIo().execute({ entity, action: 'list', params: { page_size: max } });
    expect(ok.type).toBe('json');
  });

  it('rejects params on the unpaginated lists, naming them', async () => {
    const error = await failure(
      incidentIo().execute({ entity: 'incident_roles', action: 'list', params: { page_size: 5 } }),
    );
    expect(error.code).toBe('invalid_params');
    expect(error.errors[0]?.path).toBe('/params/page_size');
  });

  it('answers an unknown entity or action with unsupported_action listing the supported ones', async () => {
    const entity = await failure(incidentIo().execute({ entity: 'incident', action: 'list' }));
    expect(entity.code).toBe('unsupported_action');
    expect(entity.errors[0]?.message).toContain('incidents');
    const action = await failure(
      incidentIo().execute({ entity: 'incident_updates', action: 'get', params: { id: 'x' } }),
    );
    expect(action.code).toBe('unsupported_action');
    expect(action.errors[0]?.message).toContain(entityActions(incidentIoCatalog.entities.incident_updates!).join(', '));
  });

  it('rides out a 429 storm honouring Retry-After and the body rate_limit.retry_after', async () => {
    sim.faults.add({ status: 429, count: 3, retryAfterSeconds: 0, pathIncludes: '/v2/alerts' });
    const first = await incidentIo().execute({ entity: 'alerts', action: 'list' });
    expect(first.type).toBe('json');
    sim.faults.add({ status: 429, count: 3, pathIncludes: '/v1/severities', body: tooManyRequests(0) });
    const second = await incidentIo({ retry: FAST_RETRY }).execute({ entity: 'severities', action: 'list' });
    expect(second.type).toBe('json');
  });

  it('maps a rejected key to upstream_auth_failed without echoing it', async () => {
    const error = await failure(incidentIo({}, sim.badCredentials).execute({ entity: 'users', action: 'list' }));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.code).toBe('upstream_auth_failed');
    const secret = String(sim.badCredentials.api_key);
    expect(JSON.stringify(error)).not.toContain(secret);
    expect(error.message).not.toContain(secret);
  });

  it('redacts the API key when an upstream error body echoes it', async () => {
    const secret = String(sim.credentials.api_key);
    sim.faults.add({
      status: 422,
      count: 1,
      pathIncludes: '/v2/users',
      body: { type: 'validation_error', key: secret },
    });
    const error = await failure(incidentIo().execute({ entity: 'users', action: 'list' }));
    expect(error.code).toBe('upstream_error');
    expect(JSON.stringify(error)).not.toContain(secret);
    expect((error as UpstreamError).upstreamBody).toContain('[REDACTED]');
  });

  it('replicates every searchable entity to the expected keys (incidents from start_date)', async () => {
    const connector = incidentIo();
    const since = String(sim.replicationConfig.start_date);
    for (const entity of Object.values(incidentIoCatalog.entities).filter((e) => e.sync)) {
      const keys = (await collect(connector.read(entity.name, { since }))).flatMap((p) => p.ids);
      expect(keys.sort(), entity.name).toEqual(sim.expectedKeys(entity.name).sort());
    }
    expect(sim.expectedKeys('incidents').length).toBeLessThan(sim.data.incidents.length);
  });

  it('resumes replication from a mid-run checkpoint without gaps', async () => {
    const connector = incidentIo();
    const since = String(sim.replicationConfig.start_date);
    const pages = await collect(connector.read('alerts', { since }));
    expect(pages.length).toBeGreaterThan(3);
    const cut = 2;
    const rest = (await collect(connector.read('alerts', { since, resume: pages[cut - 1]!.checkpoint }))).flatMap(
      (p) => p.ids,
    );
    expect([...pages.slice(0, cut).flatMap((p) => p.ids), ...rest]).toEqual(pages.flatMap((p) => p.ids));
    expect(pages.at(-1)?.checkpoint).toBeNull();
  });
});
