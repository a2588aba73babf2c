import { describe, expect, it } from 'vitest';
import { connectWith } from '../../packages/connectors/src/core/connect.ts';
import { snapchatMarketingConnector } from '../../packages/connectors/src/kinds/snapchat-marketing/connector.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';
import { startSnapchatMarketing, startSnapchatMarketingSimulator } from '../simulators/snapchat-marketing/simulator.ts';
import { describeConnectorConformance, FAST_RETRY } from './conformance.ts';
import { collectPages, failure } from './conformance-kit.ts';
import { echoedCredentials, missingAction, misspeltEntity, retryAfterStorm } from './conformance-presets.ts';

const organizations = { entity: 'organizations', action: 'list', params: {} };
const collect = async (pages: AsyncIterable<{ records: Record<string, unknown>[]; checkpoint: unknown }>) =>
  (await collectPages(pages, (r) => String(r.id))).map((p) => ({ ids: p.keys, checkpoint: p.checkpoint }));

describeConnectorConformance({
  name: 'Snapchat-Marketing in direct mode',
  definition: snapchatMarketingConnector,
  // 250 objects per ad account: replication reads 200 per page, so every child entity spans two pages.
  start: () => startSnapchatMarketing({ size: 250 }),
  invalid: [{ entity: 'organizations', action: 'list', params: { limt: 5 }, path: '/params/limt', only: true }],
  unsupported: [misspeltEntity('campaign', 'campaigns'), missingAction('segments', 'delete', 'get')],
  storms: [
    retryAfterStorm(organizations, '/v1/'),
    {
      label: '429 without Retry-After (as Snap sends them) by backoff',
      fault: { status: 429, count: 3, pathIncludes: '/v1/' },
      request: organizations,
      settings: { retry: FAST_RETRY },
    },
  ],
  auth: { request: organizations },
  echo: echoedCredentials(organizations, ['client_secret', 'refresh_token'], (planted) => ({
    status: 400,
    pathIncludes: '/v1/',
    body: { request_status: 'ERROR', debug_message: planted },
  })),
  replication: {},
  resume: [
    {
      entity: 'campaigns',
      label: 'campaigns of one ad account',
      parentParams: (h) => ({
        ad_account_id: String(h.sim().examples.find((e) => e.entity === 'campaigns')!.params.ad_account_id),
      }),
      total: 250,
    },
    // Replication that names no parent walks every ad account.
    { entity: 'campaigns', label: 'campaigns over every parent', cuts: [3], openEnded: true },
  ],
  specific: (h) => {
    it('refreshes an expired access token and reports the rotated refresh token', async () => {
      const rotated: Record<string, unknown>[] = [];
      const result = await h.connector({ onCredentialsRotated: (c) => void rotated.push(c) }).execute({
        entity: 'organizations',
        action: 'list',
      });
      expect(result.type).toBe('json');
      expect(rotated).toHaveLength(1);
      expect(rotated[0]?.refresh_token).toMatch(/^snap-rt-/);
      expect(rotated[0]?.refresh_token).not.toBe(h.sim().credentials.refresh_token);
      expect(rotated[0]?.client_id).toBe(h.sim().credentials.client_id);
    });

    it('reports a per-item failure in meta.failures on list and as upstream_error on get and replication', async () => {
      const snapSim = h.sim() as SimulatorHandle & {
        failingIds: Set<string>;
        data: { campaigns: { id: string; ad_account_id: string }[] };
      };
      const victim = snapSim.data.campaigns[3]!;
      snapSim.failingIds.add(victim.id);
      try {
        const list = await h.connector().execute({
          entity: 'campaigns',
          action: 'list',
          params: { ad_account_id: victim.ad_account_id },
        });
        if (list.type !== 'json') throw new Error('expected json');
        expect((list.body.data as { id: string }[]).map((r) => r.id)).not.toContain(victim.id);
        expect(list.body.meta?.failures).toEqual([expect.objectContaining({ sub_request_status: 'ERROR' })]);
        const get = await failure(
          h.connector().execute({ entity: 'campaigns', action: 'get', params: { id: victim.id } }),
        );
        expect(get.code).toBe('upstream_error');
        const read = await failure(
          collect(
            h.connector().read('campaigns', {
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

    it('walks every parent when replication names none', async () => {
      const since = String(h.sim().replicationConfig.start_date);
      const all = (await collect(h.connector().read('campaigns', { since }))).flatMap((p) => p.ids);
      expect(all.sort()).toEqual(h.sim().expectedKeys('campaigns').sort());
    });
  },
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
