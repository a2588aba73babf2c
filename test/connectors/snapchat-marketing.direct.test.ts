import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { entityActions } from '../../packages/connectors/src/core/catalog.ts';
import { connectWith } from '../../packages/connectors/src/core/connect.ts';
import type { ConnectorSettings } from '../../packages/connectors/src/core/define-connector.ts';
import { ConnectorError, UpstreamError } from '../../packages/connectors/src/core/errors.ts';
import { snapchatMarketingCatalog } from '../../packages/connectors/src/kinds/snapchat-marketing/catalog.ts';
import { snapchatMarketingConnector } from '../../packages/connectors/src/kinds/snapchat-marketing/connector.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';
import { startSnapchatMarketing, startSnapchatMarketingSimulator } from '../simulators/snapchat-marketing/simulator.ts';

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

describe('Snapchat-Marketing in direct mode', () => {
  let sim: SimulatorHandle;
  // 250 objects per ad account: replication reads 200 per page, so every child entity spans two pages.
  beforeAll(async () => {
    sim = await startSnapchatMarketing({ size: 250 });
  });
  afterAll(() => sim.close());

  const snap = (settings: ConnectorSettings = {}, credentials: Record<string, unknown> = sim.credentials) =>
    connectWith(snapchatMarketingConnector, credentials, sim.config, {
      baseUrl: sim.baseUrl,
      tokenUrl: sim.tokenUrl,
      ...settings,
    });

  it('answers every example call with data, and lists with meta.next_link', async () => {
    const connector = snap();
    for (const example of sim.examples) {
      const result = await connector.execute(example);
      if (result.type !== 'json') throw new Error('expected json');
      if (example.action === 'list') {
        expect(Array.isArray(result.body.data), `${example.entity}`).toBe(true);
        expect((result.body.data as unknown[]).length, example.entity).toBeGreaterThan(0);
        expect(result.body.meta, example.entity).toHaveProperty('next_link');
      } else {
        expect((result.body.data as { id: string }).id).toBe(example.params.id);
      }
    }
  });

  const required = Object.values(snapchatMarketingCatalog.entities).flatMap((entity) =>
    Object.entries(entity.actions).flatMap(([action, schema]) =>
      Object.keys(schema.shape)
        .filter((name) => !(schema.shape[name] as z.ZodType).safeParse(undefined).success)
        .map((name) => ({ entity: entity.name, action, name })),
    ),
  );

  it.each(required)(
    '$entity $action without $name is invalid_params at /params/$name',
    async ({ entity, action, name }) => {
      const error = await failure(snap().execute({ entity, action, params: {} }));
      expect(error.code).toBe('invalid_params');
      expect(error.errors.map((e) => e.path)).toContain(`/params/${name}`);
      const empty = await failure(snap().execute({ entity, action, params: { [name]: '' } }));
      expect(empty.errors.map((e) => e.path)).toContain(`/params/${name}`);
    },
  );

  it('rejects an unknown param naming it', async () => {
    const error = await failure(snap().execute({ entity: 'organizations', action: 'list', params: { limt: 5 } }));
    expect(error.code).toBe('invalid_params');
    expect(error.errors[0]?.path).toBe('/params/limt');
  });

  it('answers an unknown entity or action with unsupported_action listing the supported ones', async () => {
    const entity = await failure(snap().execute({ entity: 'campaign', action: 'list' }));
    expect(entity.code).toBe('unsupported_action');
    expect(entity.errors[0]?.message).toContain('campaigns');
    const action = await failure(snap().execute({ entity: 'segments', action: 'get', params: { id: 'x' } }));
    expect(action.code).toBe('unsupported_action');
    expect(action.errors[0]?.message).toContain(entityActions(snapchatMarketingCatalog.entities.segments!).join(', '));
  });

  it('rides out a 429 storm honouring Retry-After, and one without Retry-After (as Snap sends them) by backoff', async () => {
    sim.faults.add({ status: 429, count: 3, retryAfterSeconds: 0, pathIncludes: '/v1/' });
    const first = await snap().execute({ entity: 'organizations', action: 'list' });
    expect(first.type).toBe('json');
    sim.faults.add({ status: 429, count: 3, pathIncludes: '/v1/' });
    const second = await snap({ retry: FAST_RETRY }).execute({ entity: 'organizations', action: 'list' });
    expect(second.type).toBe('json');
  });

  it('maps rejected credentials to upstream_auth_failed without echoing any secret', async () => {
    const error = await failure(snap({}, sim.badCredentials).execute({ entity: 'organizations', action: 'list' }));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.code).toBe('upstream_auth_failed');
    for (const secret of Object.values(sim.badCredentials).map(String)) {
      expect(JSON.stringify(error)).not.toContain(secret);
      expect(error.message).not.toContain(secret);
    }
  });

  it('refreshes an expired access token and reports the rotated refresh token', async () => {
    const rotated: Record<string, unknown>[] = [];
    const result = await snap({ onCredentialsRotated: (c) => void rotated.push(c) }).execute({
      entity: 'organizations',
      action: 'list',
    });
    expect(result.type).toBe('json');
    expect(rotated).toHaveLength(1);
    expect(rotated[0]?.refresh_token).toMatch(/^snap-rt-/);
    expect(rotated[0]?.refresh_token).not.toBe(sim.credentials.refresh_token);
    expect(rotated[0]?.client_id).toBe(sim.credentials.client_id);
  });

  it('reports a per-item failure in meta.failures on list and as upstream_error on get and replication', async () => {
    const snapSim = sim as SimulatorHandle & {
      failingIds: Set<string>;
      data: { campaigns: { id: string; ad_account_id: string }[] };
    };
    const victim = snapSim.data.campaigns[3]!;
    snapSim.failingIds.add(victim.id);
    try {
      const list = await snap().execute({
        entity: 'campaigns',
        action: 'list',
        params: { ad_account_id: victim.ad_account_id },
      });
      if (list.type !== 'json') throw new Error('expected json');
      expect((list.body.data as { id: string }[]).map((r) => r.id)).not.toContain(victim.id);
      expect(list.body.meta?.failures).toEqual([expect.objectContaining({ sub_request_status: 'ERROR' })]);
      const get = await failure(snap().execute({ entity: 'campaigns', action: 'get', params: { id: victim.id } }));
      expect(get.code).toBe('upstream_error');
      const read = await failure(
        collect(
          snap().read('campaigns', {
            since: '2024-01-01T00:00:00Z',
            parentParams: { ad_account_id: victim.ad_account_id },
          }),
        ),
      );
      expect(read.code).toBe('upstream_error');
    } finally {
      snapSim.failingIds.clear();
    }
  });

  it('replicates every searchable entity, children per parent, to the expected keys', async () => {
    const connector = snap();
    const since = String(sim.replicationConfig.start_date);
    for (const entity of Object.values(snapchatMarketingCatalog.entities).filter((e) => e.sync)) {
      const parent = entity.sync?.parent;
      const parents = parent
        ? (await collect(connector.read(parent.entity, { since })))
            .flatMap((p) => p.ids)
            .map((id) => ({ [parent.param]: id }))
        : [undefined];
      const keys: string[] = [];
      for (const parentParams of parents) {
        const pages = await collect(connector.read(entity.name, { since, ...(parentParams ? { parentParams } : {}) }));
        keys.push(...pages.flatMap((p) => p.ids));
      }
      expect(keys.sort(), entity.name).toEqual(sim.expectedKeys(entity.name).sort());
    }
  });

  it('resumes replication from a mid-run checkpoint without gaps', async () => {
    const connector = snap();
    const since = String(sim.replicationConfig.start_date);
    const parentParams = {
      ad_account_id: String(sim.examples.find((e) => e.entity === 'campaigns')!.params.ad_account_id),
    };
    const all = (await collect(connector.read('campaigns', { since, parentParams }))).flatMap((p) => p.ids);
    const iterator = connector.read('campaigns', { since, parentParams })[Symbol.asyncIterator]();
    const first = await iterator.next();
    await iterator.return?.();
    if (first.done) throw new Error('no first page');
    expect(first.value.checkpoint).toBeTruthy();
    const rest = (
      await collect(connector.read('campaigns', { since, parentParams, resume: first.value.checkpoint }))
    ).flatMap((p) => p.ids);
    expect([...first.value.records.map((r) => String(r.id)), ...rest]).toEqual(all);
    expect(all).toHaveLength(250);
  });

  it('walks every parent when replication names none, and resumes that walk without gaps', async () => {
    const connector = snap();
    const since = String(sim.replicationConfig.start_date);
    const all = (await collect(connector.read('campaigns', { since }))).flatMap((p) => p.ids);
    expect(all.sort()).toEqual(sim.expectedKeys('campaigns').sort());
    const pages = await collect(connector.read('campaigns', { since }));
    const cut = 3;
    const rest = (await collect(connector.read('campaigns', { since, resume: pages[cut - 1]!.checkpoint }))).flatMap(
      (p) => p.ids,
    );
    expect([...pages.slice(0, cut).flatMap((p) => p.ids), ...rest]).toEqual(pages.flatMap((p) => p.ids));
  });
});

describe('Snapchat-Marketing token lifecycle', () => {
  it('rejects a refresh token once rotated out, accepts the rotated one, and refreshes again after expiry', async () => {
    const sim = await startSnapchatMarketingSimulator({ perAdAccount: 2, refreshGraceMs: 0, accessTokenTtlMs: 300 });
    try {
      const base = {
        client_id: sim.clientId,
        client_secret: sim.clientSecret,
        refresh_token: sim.initialRefreshToken,
        access_token: sim.expiredAccessToken,
      };
      const settings = { baseUrl: `${sim.url}/v1`, tokenUrl: `${sim.url}/login/oauth2/access_token` };
      let rotated: Record<string, unknown> = {};
      const connector = connectWith(
        snapchatMarketingConnector,
        base,
        {},
        {
          ...settings,
          onCredentialsRotated: (c) => {
            rotated = c;
          },
        },
      );
      await connector.execute({ entity: 'organizations', action: 'list' });
      await new Promise((resolve) => setTimeout(resolve, 400));
      await connector.execute({ entity: 'organizations', action: 'list' });
      expect(sim.refreshes).toHaveLength(2);
      const stale = await failure(
        connectWith(snapchatMarketingConnector, base, {}, settings).execute({
          entity: 'organizations',
          action: 'list',
        }),
      );
      expect(stale.code).toBe('upstream_auth_failed');
      const fresh = await connectWith(snapchatMarketingConnector, rotated, {}, settings).execute({
        entity: 'organizations',
        action: 'list',
      });
      expect(fresh.type).toBe('json');
    } finally {
      await sim.close();
    }
  });
});
