import { ConnectorError, type ReadPage, UpstreamError } from '@conduit/connectors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { connectWith } from '../../packages/connectors/src/core/connect.ts';
import { typeformConnector } from '../../packages/connectors/src/kinds/typeform/connector.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';
import { startTypeform, startTypeformSimulator, type TypeformSimulator } from '../simulators/typeform/simulator.ts';

const { catalog } = typeformConnector;
const FAST_RETRY = { maxAttempts: 6, baseDelayMs: 1, maxDelayMs: 20, maxWaitMs: 5_000 };

type Shape = Record<string, z.ZodType>;
const shapeOf = (schema: unknown): Shape => (schema as { shape: Shape }).shape;
const bounds = (field: z.ZodType): { min?: number; max?: number; integer: boolean } => {
  const inner = (field as unknown as { unwrap?: () => z.ZodType }).unwrap?.() ?? field;
  const n = inner as unknown as {
    minValue?: number | null;
    maxValue?: number | null;
    isInt?: boolean;
    format?: string | null;
  };
  return {
    ...(Number.isFinite(n.minValue) ? { min: n.minValue as number } : {}),
    ...(Number.isFinite(n.maxValue) ? { max: n.maxValue as number } : {}),
    integer: n.isInt === true || n.format === 'safeint' || n.format === 'int32',
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

describe('Typeform in direct mode', () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await startTypeform({ size: 6 });
  });
  afterAll(() => sim.close());

  const typeform = (credentials = sim.credentials) =>
    connectWith(typeformConnector, credentials, sim.config, {
      baseUrl: sim.baseUrl,
      tokenUrl: sim.tokenUrl,
      retry: FAST_RETRY,
    });

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

  it('answers every example call with data, and lists with the Meta of document 2', async () => {
    for (const example of sim.examples) {
      const result = await typeform().execute(example);
      if (result.type !== 'json') throw new Error('expected json');
      const label = `${example.entity} ${example.action}`;
      if (example.action === 'list') {
        expect(Array.isArray(result.body.data), label).toBe(true);
        expect((result.body.data as unknown[]).length, label).toBeGreaterThan(0);
        const meta = catalog.entities[example.entity]!.meta ?? {};
        expect(Object.keys(result.body.meta ?? {}).sort(), label).toEqual(Object.keys(meta).sort());
      } else {
        expect(result.body.data, label).toMatchObject({ id: expect.any(String) });
      }
    }
  });

  it('pages forms by page number while page < page_count', async () => {
    const first = await typeform().execute({ entity: 'forms', action: 'list', params: { page: 1, page_size: 4 } });
    if (first.type !== 'json') throw new Error('expected json');
    expect(first.body.meta).toEqual({ total_items: 6, page_count: 2 });
    const second = await typeform().execute({ entity: 'forms', action: 'list', params: { page: 2, page_size: 4 } });
    if (second.type !== 'json') throw new Error('expected json');
    expect(second.body.data).toHaveLength(2);
  });

  it('adds form_id to responses, which Typeform leaves out', async () => {
    const example = sim.examples.find((e) => e.entity === 'responses')!;
    const result = await typeform().execute(example);
    if (result.type !== 'json') throw new Error('expected json');
    for (const record of result.body.data as Record<string, unknown>[])
      expect(record.form_id).toBe(example.params.form_id);
  });

  describe('rejects invalid params naming them', () => {
    const cases: { label: string; entity: string; action: string; params: Record<string, unknown>; path: string }[] =
      [];
    beforeAll(() => {
      for (const example of sim.examples) {
        const schema = catalog.entities[example.entity]!.actions[example.action as 'list'];
        for (const [name, field] of Object.entries(shapeOf(schema))) {
          if (!field.safeParse(undefined).success) {
            const { [name]: _omitted, ...params } = example.params;
            cases.push({
              label: `missing ${name}`,
              entity: example.entity,
              action: example.action,
              params,
              path: `/params/${name}`,
            });
          }
          const b = bounds(field);
          for (const value of [
            b.min === undefined ? undefined : b.min - 1,
            b.max === undefined ? undefined : b.max + 1,
            b.integer ? 1.5 : undefined,
          ]) {
            if (value === undefined) continue;
            cases.push({
              label: `${name}=${value}`,
              entity: example.entity,
              action: example.action,
              params: { ...example.params, [name]: value },
              path: `/params/${name}`,
            });
          }
        }
      }
    });

    it('for every required parameter and every bound of the catalog', async () => {
      expect(cases.some((c) => c.label.startsWith('missing form_id'))).toBe(true);
      expect(cases.some((c) => c.label.startsWith('page_size='))).toBe(true);
      for (const c of cases) {
        const error = await typeform()
          .execute({ entity: c.entity, action: c.action, params: c.params })
          .catch((e: unknown) => e);
        expect(error, `${c.entity} ${c.action} ${c.label}`).toBeInstanceOf(ConnectorError);
        expect((error as ConnectorError).code, c.label).toBe('invalid_params');
        expect(
          (error as ConnectorError).errors.map((p) => p.path),
          c.label,
        ).toContain(c.path);
      }
    });
  });

  it('refuses form ids that are dot segments (URL resolution would leave /forms)', async () => {
    for (const form_id of ['..', '.', '%2E%2e']) {
      const error = (await typeform()
        .execute({ entity: 'forms', action: 'get', params: { form_id } })
        .catch((e: unknown) => e)) as ConnectorError;
      expect(error.code, form_id).toBe('invalid_params');
      expect(error.errors[0]?.path).toBe('/params/form_id');
    }
  });

  it('answers unknown entities and actions with unsupported_action listing the supported ones', async () => {
    const entity = (await typeform()
      .execute({ entity: 'form', action: 'list' })
      .catch((e: unknown) => e)) as ConnectorError;
    expect(entity.code).toBe('unsupported_action');
    expect(entity.errors[0]?.message).toContain('forms');
    const action = (await typeform()
      .execute({ entity: 'images', action: 'delete' })
      .catch((e: unknown) => e)) as ConnectorError;
    expect(action.code).toBe('unsupported_action');
    expect(action.errors[0]?.message).toContain('list');
  });

  it('rides out a 429 storm honouring Retry-After', async () => {
    sim.faults.add({ status: 429, count: 3, retryAfterSeconds: 0 });
    const result = await typeform().execute({ entity: 'themes', action: 'list', params: {} });
    expect(result.type).toBe('json');
  });

  it('maps rejected credentials to upstream_auth_failed without echoing them', async () => {
    const token = String(sim.badCredentials.access_token);
    const error = await typeform(sim.badCredentials)
      .execute({ entity: 'images', action: 'list' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).code).toBe('upstream_auth_failed');
    expect(JSON.stringify(error)).not.toContain(token);
    expect((error as Error).message).not.toContain(token);
  });

  it('redacts a credential the upstream echoes in an error body', async () => {
    const token = String(sim.credentials.access_token);
    sim.faults.add({
      status: 400,
      count: 1,
      body: { code: 'VALIDATION_ERROR', description: `bad request for ${token}` },
    });
    const error = await typeform()
      .execute({ entity: 'images', action: 'list' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(JSON.stringify(error)).not.toContain(token);
    expect((error as Error).message).not.toContain(token);
  });

  it('replicates every searchable entity from start_date (children per form)', async () => {
    const since = String(sim.replicationConfig.start_date);
    for (const [name, entity] of Object.entries(catalog.entities)) {
      if (!entity.sync) continue;
      const keys: string[] = [];
      const parent = entity.sync.parent;
      if (parent) {
        for await (const page of typeform().read(parent.entity, { since })) {
          for (const record of page.records) {
            const parentParams = { [parent.param]: record[parent.from] };
            keys.push(...(await collect(name, typeform().read(name, { since, parentParams }))).keys);
          }
        }
      } else {
        keys.push(...(await collect(name, typeform().read(name, { since }))).keys);
      }
      expect(keys.length, name).toBeGreaterThan(0);
      expect(new Set(keys), name).toEqual(new Set(sim.expectedKeys(name)));
    }
  });

  it('resumes responses from a mid-run checkpoint without gaps', async () => {
    const since = String(sim.replicationConfig.start_date);
    // The simulator's first form holds more than two pages of responses.
    const listed = await typeform().execute({ entity: 'forms', action: 'list', params: { page_size: 200 } });
    if (listed.type !== 'json') throw new Error('expected json');
    const counts = await Promise.all(
      (listed.body.data as { id: string }[]).map(async (f) => {
        const r = await typeform().execute({
          entity: 'responses',
          action: 'list',
          params: { form_id: f.id, page_size: 1 },
        });
        return { id: f.id, total: r.type === 'json' ? Number(r.body.meta?.total_items) : 0 };
      }),
    );
    const bigForm = counts.sort((a, b) => b.total - a.total)[0]!.id;
    const full = await collect(
      'responses',
      typeform().read('responses', { since, parentParams: { form_id: bigForm } }),
    );
    expect(full.checkpoints.length).toBeGreaterThan(1);
    const pages: ReadPage[] = [];
    for await (const page of typeform().read('responses', { since, parentParams: { form_id: bigForm } })) {
      pages.push(page);
      break;
    }
    const rest = await collect(
      'responses',
      typeform().read('responses', { since, parentParams: { form_id: bigForm }, resume: pages[0]!.checkpoint }),
    );
    const first = pages[0]!.records.map((r) => String(r.response_id));
    expect([...first, ...rest.keys]).toEqual(full.keys);
    expect(new Set(full.keys).size).toBe(full.keys.length);
  });
});

describe('Typeform OAuth', () => {
  let sim: TypeformSimulator;
  beforeAll(async () => {
    sim = await startTypeformSimulator({ forms: 2 });
  });
  afterAll(() => sim.close());

  it('refreshes an expired access token and hands back the rotated refresh token', async () => {
    const rotated: Record<string, unknown>[] = [];
    const credentials = {
      access_token: sim.expiredAccessToken,
      refresh_token: sim.initialRefreshToken,
      client_id: sim.clientId,
      client_secret: sim.clientSecret,
    };
    const connector = connectWith(
      typeformConnector,
      credentials,
      {},
      {
        baseUrl: sim.url,
        tokenUrl: `${sim.url}/oauth/token`,
        onCredentialsRotated: (c) => {
          rotated.push(c);
        },
      },
    );
    const result = await connector.execute({ entity: 'images', action: 'list' });
    expect(result.type).toBe('json');
    expect(sim.refreshes).toEqual([sim.initialRefreshToken]);
    expect(rotated).toHaveLength(1);
    expect(rotated[0]!.refresh_token).not.toBe(sim.initialRefreshToken);
    expect(rotated[0]!.client_id).toBe(sim.clientId);

    // The old refresh token was rotated out: a copy still holding it cannot refresh.
    const stale = connectWith(
      typeformConnector,
      credentials,
      {},
      { baseUrl: sim.url, tokenUrl: `${sim.url}/oauth/token` },
    );
    const error = await stale.execute({ entity: 'images', action: 'list' }).catch((e: unknown) => e);
    expect((error as UpstreamError).code).toBe('upstream_auth_failed');
    expect(JSON.stringify(error)).not.toContain(sim.clientSecret);
    expect(JSON.stringify(error)).not.toContain(sim.initialRefreshToken);
  });

  it("stays within Typeform's 2 requests per second by honouring the 429s", async () => {
    const limited = await startTypeformSimulator({ forms: 2, requestsPerSecond: 2 });
    try {
      const connector = connectWith(
        typeformConnector,
        { access_token: limited.personalToken },
        {},
        { baseUrl: limited.url },
      );
      for (let i = 0; i < 5; i++)
        expect((await connector.execute({ entity: 'images', action: 'list' })).type).toBe('json');
    } finally {
      await limited.close();
    }
  });
});
