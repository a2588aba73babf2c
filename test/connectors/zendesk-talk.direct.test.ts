import type { ReadPage } from '@conduit/connectors';
import { describe, expect, it } from 'vitest';
import { connectWith } from '../../packages/connectors/src/core/connect.ts';
import { ConnectorError, type UpstreamError } from '../../packages/connectors/src/core/errors.ts';
import { zendeskTalkConnector } from '../../packages/connectors/src/kinds/zendesk-talk/connector.ts';
import { simulatorForAll } from '../harness/simulator-for-all.ts';
import { startZendeskTalk, startZendeskTalkSimulator } from '../simulators/zendesk-talk/simulator.ts';
import { describeConnectorConformance, FAST_RETRY } from './conformance.ts';
import { collectPages, keyOf } from './conformance-kit.ts';
import { echoedCredentials, missingAction, misspeltEntity, retryAfterStorm } from './conformance-presets.ts';

const { catalog } = zendeskTalkConnector;
const addresses = { entity: 'addresses', action: 'list', params: {} };

async function collect(entity: string, pages: AsyncIterable<ReadPage>) {
  const read = await collectPages(pages, keyOf(catalog, entity));
  return { keys: read.flatMap((p) => p.keys), checkpoints: read.map((p) => p.checkpoint) };
}

describeConnectorConformance({
  name: 'Zendesk Talk in direct mode',
  definition: zendeskTalkConnector,
  // 120 phone numbers (two pages of 100), 1,200 calls and about 2,400 legs (several export pages of 1,000).
  start: () => startZendeskTalk({ size: 120 }),
  settings: { retry: FAST_RETRY },
  derivedCovers: ['phone_number_id', 'start_time'],
  unsupported: [misspeltEntity('phone_number', 'phone_numbers'), missingAction('calls', 'get', 'list')],
  storms: [retryAfterStorm(addresses)],
  auth: { request: addresses },
  echo: echoedCredentials(addresses, ['api_token'], (planted) => ({
    status: 400,
    body: { error: 'InvalidValue', description: `bad token ${planted}` },
  })),
  replication: {},
  resume: [
    // From the beginning: about 2,400 legs, three export pages whose boundary records repeat upstream.
    { entity: 'call_legs', since: () => '2020-01-01T00:00:00Z', minPages: 3 },
    // Offset paging: two pages of 100.
    { entity: 'phone_numbers', pages: 2, pageSize: 100 },
  ],
  specific: (h) => {
    it('hands out the next offset page as a full URL, and null on the last page', async () => {
      const first = await h.json('phone_numbers', 'list');
      expect(first.data).toHaveLength(100);
      expect(String(first.meta?.next_page)).toMatch(/\/acme\/api\/v2\/channels\/voice\/phone_numbers\?page=2/);
      const ivrs = await h.json('ivrs', 'list');
      expect(ivrs.meta).toEqual({ next_page: null });
    });

    it('returns a single-object statistic as one record stamped with current_timestamp', async () => {
      const [record] = (await h.json('agents_overview', 'list')).data as Record<string, unknown>[];
      expect(Number.isInteger(record?.current_timestamp)).toBe(true);
      expect(Math.abs((record?.current_timestamp as number) - Date.now() / 1000)).toBeLessThan(5);
      expect(typeof record?.total_calls_accepted).toBe('number');
    });

    it('refuses a subdomain that is no valid account name before any call', () => {
      expect(() => connectWith(zendeskTalkConnector, h.sim().credentials, { subdomain: 'evil.com/x' })).toThrow(
        ConnectorError,
      );
    });
  },
});

describe('Zendesk Talk OAuth', () => {
  const sim = simulatorForAll(() => startZendeskTalkSimulator({ size: 4 }));

  it('refreshes an expired access token and hands back the rotated refresh token', async () => {
    sim.expireAccessToken();
    const rotated: Record<string, unknown>[] = [];
    const credentials = {
      access_token: sim.initialAccessToken,
      refresh_token: sim.initialRefreshToken,
      client_id: sim.clientId,
      client_secret: sim.clientSecret,
    };
    const settings = { baseUrl: sim.baseUrl, tokenUrl: sim.tokenUrl, retry: FAST_RETRY };
    const connector = connectWith(
      zendeskTalkConnector,
      credentials,
      { subdomain: sim.subdomain },
      { ...settings, onCredentialsRotated: (c) => void rotated.push(c) },
    );
    const result = await connector.execute({ entity: 'greetings', action: 'list' });
    expect(result.type).toBe('json');
    expect(sim.refreshes).toEqual([sim.initialRefreshToken]);
    expect(rotated).toHaveLength(1);
    expect(rotated[0]!.refresh_token).not.toBe(sim.initialRefreshToken);
    expect(rotated[0]!.client_id).toBe(sim.clientId);

    // The old refresh token was rotated out: a copy still holding it cannot refresh.
    const stale = connectWith(zendeskTalkConnector, credentials, { subdomain: sim.subdomain }, settings);
    const error = await stale.execute({ entity: 'greetings', action: 'list' }).catch((e: unknown) => e);
    expect((error as UpstreamError).code).toBe('upstream_auth_failed');
    for (const secret of [sim.clientSecret, sim.initialRefreshToken, sim.initialAccessToken]) {
      expect(JSON.stringify(error)).not.toContain(secret);
      expect((error as Error).message).not.toContain(secret);
    }

    // The rotated credentials work as a plain bearer token too.
    const bearer = connectWith(
      zendeskTalkConnector,
      { access_token: String(rotated[0]!.access_token) },
      { subdomain: sim.subdomain },
      settings,
    );
    expect((await bearer.execute({ entity: 'addresses', action: 'list' })).type).toBe('json');
  });

  it('stops an incremental export below a full page even though next_page is never null', async () => {
    const small = await startZendeskTalkSimulator({ size: 4, calls: 30, exportPageSize: 1000 });
    try {
      const connector = connectWith(
        zendeskTalkConnector,
        { email: small.email, api_token: small.apiToken },
        { subdomain: small.subdomain },
        { baseUrl: small.baseUrl },
      );
      const pages = await collect('calls', connector.read('calls', { since: '2020-01-01T00:00:00Z' }));
      expect(pages.checkpoints).toEqual([null]);
      expect(pages.keys).toHaveLength(30);
      expect(small.faults.requests.filter((r) => r.path.endsWith('/incremental/calls'))).toHaveLength(1);
    } finally {
      await small.close();
    }
  });
});
