import { ConnectorError, type ReadPage, UpstreamError } from '@conduit/connectors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { connectWith } from '../../packages/connectors/src/core/connect.ts';
import { sentryConnector } from '../../packages/connectors/src/kinds/sentry/connector.ts';
import { parseLinkHeader } from '../../packages/connectors/src/kinds/sentry/link-paging.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';
import { startSentry } from '../simulators/sentry/simulator.ts';

const { catalog } = sentryConnector;
const FAST_RETRY = { maxAttempts: 6, baseDelayMs: 1, maxDelayMs: 20, maxWaitMs: 5_000 };

type Shape = Record<string, z.ZodType>;
const shapeOf = (schema: unknown): Shape => (schema as { shape: Shape }).shape;
const bounds = (field: z.ZodType): { min?: number; max?: number } => {
  const inner = (field as unknown as { unwrap?: () => z.ZodType }).unwrap?.() ?? field;
  const n = inner as unknown as { minValue?: number | null; maxValue?: number | null };
  return {
    ...(Number.isFinite(n.minValue) ? { min: n.minValue as number } : {}),
    ...(Number.isFinite(n.maxValue) ? { max: n.maxValue as number } : {}),
  };
};

async function collect(
  entity: string,
  pages: AsyncIterable<ReadPage>,
): Promise<{ keys: string[]; checkpoints: unknown[] }> {
  const key = catalog.entities[entity]!.recordKey;
  const keys: string[] = [];
  const checkpoints: unknown[] = [];
  for await (const page of pages) {
    keys.push(...page.records.map((r) => String(r[key])));
    checkpoints.push(page.checkpoint);
  }
  return { keys, checkpoints };
}

describe('Sentry in direct mode', () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await startSentry({ size: 12 });
  });
  afterAll(() => sim.close());

  const sentry = (credentials = sim.credentials) =>
    connectWith(sentryConnector, credentials, sim.config, { baseUrl: sim.baseUrl, retry: FAST_RETRY });

  it('lists an example for every entity × live action of document 2', () => {
    for (const [name, entity] of Object.entries(catalog.entities)) {
      for (const action of Object.keys(entity.actions)) {
        expect(
          sim.examples.some((e) => e.entity === name && e.action === action),
          `${name} ${action}`,
        ).toBe(true);
      }
    }
  });

  it('answers every example call with data, and lists with the catalog Meta', async () => {
    for (const example of sim.examples) {
      const result = await sentry().execute(example);
      if (result.type !== 'json') throw new Error('expected json');
      const label = `${example.entity} ${example.action}`;
      if (example.action === 'list') {
        expect((result.body.data as unknown[]).length, label).toBeGreaterThan(0);
        const meta = catalog.entities[example.entity]!.meta ?? {};
        expect(Object.keys(result.body.meta ?? {}).sort(), label).toEqual(Object.keys(meta).sort());
      } else {
        expect(result.body.data, label).toMatchObject({ id: expect.anything() });
      }
    }
  });

  it('follows the Link header cursor until results="false"', async () => {
    const example = sim.examples.find((e) => e.entity === 'issues' && e.action === 'list')!;
    const seen: string[] = [];
    let params: Record<string, unknown> | null = example.params;
    let pages = 0;
    while (params) {
      const result = await sentry().execute({ entity: 'issues', action: 'list', params });
      if (result.type !== 'json') throw new Error('expected json');
      seen.push(...(result.body.data as { id: string }[]).map((r) => r.id));
      const cursor = Object.values(result.body.meta ?? {})[0];
      params = typeof cursor === 'string' ? { ...example.params, cursor } : null;
      pages++;
    }
    expect(pages).toBeGreaterThan(1);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('parses Sentry Link headers', () => {
    const links = parseLinkHeader(
      '<https://sentry.io/api/0/projects/?&cursor=0:0:1>; rel="previous"; results="false"; cursor="0:0:1", ' +
        '<https://sentry.io/api/0/projects/?&cursor=0:100:0>; rel="next"; results="true"; cursor="0:100:0"',
    );
    expect(links.previous).toEqual({
      url: 'https://sentry.io/api/0/projects/?&cursor=0:0:1',
      results: false,
      cursor: '0:0:1',
    });
    expect(links.next?.cursor).toBe('0:100:0');
    expect(links.next?.results).toBe(true);
  });

  it('rejects every missing required parameter and violated bound, naming it', async () => {
    let checked = 0;
    for (const example of sim.examples) {
      const schema = catalog.entities[example.entity]!.actions[example.action as 'list'];
      for (const [name, field] of Object.entries(shapeOf(schema))) {
        const variants: Record<string, unknown>[] = [];
        if (!field.safeParse(undefined).success) {
          const { [name]: _omitted, ...params } = example.params;
          variants.push(params);
        }
        const b = bounds(field);
        if (b.min !== undefined) variants.push({ ...example.params, [name]: b.min - 1 });
        if (b.max !== undefined) variants.push({ ...example.params, [name]: b.max + 1 });
        for (const params of variants) {
          const error = await sentry()
            .execute({ entity: example.entity, action: example.action, params })
            .catch((e: unknown) => e);
          const label = `${example.entity} ${example.action} ${name}`;
          expect(error, label).toBeInstanceOf(ConnectorError);
          expect((error as ConnectorError).code, label).toBe('invalid_params');
          expect(
            (error as ConnectorError).errors.map((p) => p.path),
            label,
          ).toContain(`/params/${name}`);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(12);
  });

  it('answers unknown entities and actions with unsupported_action listing the supported ones', async () => {
    const entity = (await sentry()
      .execute({ entity: 'issue', action: 'list' })
      .catch((e: unknown) => e)) as ConnectorError;
    expect(entity.code).toBe('unsupported_action');
    expect(entity.errors[0]?.message).toContain('issues');
    const action = (await sentry()
      .execute({ entity: 'releases', action: 'create' })
      .catch((e: unknown) => e)) as ConnectorError;
    expect(action.code).toBe('unsupported_action');
    expect(action.errors[0]?.message).toContain('get');
  });

  it('rides out a 429 storm honouring Retry-After', async () => {
    sim.faults.add({ status: 429, count: 3, retryAfterSeconds: 0 });
    const result = await sentry().execute({ entity: 'projects', action: 'list', params: {} });
    expect(result.type).toBe('json');
  });

  it('honours the wait in a Sentry throttle body when Retry-After is absent', async () => {
    sim.faults.add({
      status: 429,
      count: 1,
      body: { detail: 'Request was throttled. Expected available in 1 seconds.' },
    });
    const started = Date.now();
    const result = await sentry().execute({ entity: 'projects', action: 'list', params: {} });
    expect(result.type).toBe('json');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('maps a rejected token to upstream_auth_failed without echoing it', async () => {
    const token = String(Object.values(sim.badCredentials)[0]);
    const error = await sentry(sim.badCredentials)
      .execute({ entity: 'projects', action: 'list', params: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).code).toBe('upstream_auth_failed');
    expect(JSON.stringify(error)).not.toContain(token);
    expect((error as Error).message).not.toContain(token);
  });

  it('redacts a credential the upstream echoes in an error body', async () => {
    const token = String(Object.values(sim.credentials)[0]);
    sim.faults.add({ status: 400, count: 1, body: { detail: `Invalid request for token ${token}` } });
    const error = await sentry()
      .execute({ entity: 'projects', action: 'list', params: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(JSON.stringify(error)).not.toContain(token);
    expect((error as Error).message).not.toContain(token);
  });

  it('path-escapes user-supplied ids and refuses dot segments', async () => {
    const organization_slug = String(sim.config.organization_slug);
    const escaped = await sentry()
      .execute({ entity: 'releases', action: 'get', params: { organization_slug, version: '../../projects' } })
      .catch((e: unknown) => e);
    expect((escaped as UpstreamError).code).toBe('upstream_not_found');
    for (const version of ['..', '.', '%2e%2E']) {
      const error = await sentry()
        .execute({ entity: 'releases', action: 'get', params: { organization_slug, version } })
        .catch((e: unknown) => e);
      expect((error as ConnectorError).code, version).toBe('invalid_params');
      expect((error as ConnectorError).errors[0]?.path).toBe('/params/version');
    }
  });

  it('replicates every searchable entity from start_date (children per project)', async () => {
    const since = String(sim.replicationConfig.start_date);
    for (const [name, entity] of Object.entries(catalog.entities)) {
      if (!entity.sync) continue;
      const keys: string[] = [];
      const parent = entity.sync.parent;
      if (parent) {
        for await (const page of sentry().read(parent.entity, { since })) {
          for (const record of page.records) {
            const parentParams = { [parent.param]: record[parent.from] };
            keys.push(...(await collect(name, sentry().read(name, { since, parentParams }))).keys);
          }
        }
      } else {
        keys.push(...(await collect(name, sentry().read(name, { since }))).keys);
      }
      expect(keys.length, name).toBeGreaterThan(0);
      expect(new Set(keys), name).toEqual(new Set(sim.expectedKeys(name)));
    }
  });

  it('resumes from a mid-run checkpoint without gaps', async () => {
    const since = String(sim.replicationConfig.start_date);
    const entity =
      Object.entries(catalog.entities).find(([, e]) => e.sync && !e.sync.parent && e.name !== 'projects')?.[0] ??
      'projects';
    const full = await collect(entity, sentry().read(entity, { since }));
    expect(full.checkpoints.length).toBeGreaterThan(2);
    const key = catalog.entities[entity]!.recordKey;
    let first: ReadPage | undefined;
    for await (const page of sentry().read(entity, { since })) {
      first = page;
      break;
    }
    const rest = await collect(entity, sentry().read(entity, { since, resume: first!.checkpoint }));
    expect([...first!.records.map((r) => String(r[key])), ...rest.keys]).toEqual(full.keys);
  });
});
