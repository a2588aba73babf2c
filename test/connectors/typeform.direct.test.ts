import { describe, expect, it } from 'vitest';
import { connectWith } from '../../packages/connectors/src/core/connect.ts';
import type { UpstreamError } from '../../packages/connectors/src/core/errors.ts';
import { typeformConnector } from '../../packages/connectors/src/kinds/typeform/connector.ts';
import { simulatorForAll } from '../harness/simulator-for-all.ts';
import { startTypeform, startTypeformSimulator } from '../simulators/typeform/simulator.ts';
import { describeConnectorConformance, FAST_RETRY } from './conformance.ts';
import { failure } from './conformance-kit.ts';
import { echoedCredentials, missingAction, misspeltEntity, retryAfterStorm } from './conformance-presets.ts';

const images = { entity: 'images', action: 'list', params: {} };

describeConnectorConformance({
  name: 'Typeform in direct mode',
  definition: typeformConnector,
  start: () => startTypeform({ size: 6 }),
  settings: { retry: FAST_RETRY },
  derivedCovers: ['missing form_id', 'bound page_size='],
  unsupported: [misspeltEntity('form', 'forms'), missingAction('images', 'delete', 'list')],
  storms: [retryAfterStorm({ entity: 'themes', action: 'list', params: {} })],
  auth: { request: images },
  echo: echoedCredentials(images, ['access_token'], (planted) => ({
    status: 400,
    body: { code: 'VALIDATION_ERROR', description: `bad request for ${planted}` },
  })),
  replication: {},
  resume: [
    {
      entity: 'responses',
      // The simulator's biggest form holds more than one page of responses.
      parentParams: async (h) => {
        const forms = (await h.json('forms', 'list', { page_size: 200 })).data as { id: string }[];
        const counts = await Promise.all(
          forms.map(async (f) => {
            const r = await h.json('responses', 'list', { form_id: f.id, page_size: 1 });
            return { id: f.id, total: Number(r.meta?.total_items) };
          }),
        );
        return { form_id: counts.sort((a, b) => b.total - a.total)[0]!.id };
      },
    },
  ],
  specific: (h) => {
    it('pages forms by page number while page < page_count', async () => {
      const first = await h.json('forms', 'list', { page: 1, page_size: 4 });
      expect(first.meta).toEqual({ total_items: 6, page_count: 2 });
      const second = await h.json('forms', 'list', { page: 2, page_size: 4 });
      expect(second.data).toHaveLength(2);
    });

    it('adds form_id to responses, which Typeform leaves out', async () => {
      const example = h.sim().examples.find((e) => e.entity === 'responses')!;
      const body = await h.json(example.entity, example.action, example.params);
      for (const record of body.data as Record<string, unknown>[]) expect(record.form_id).toBe(example.params.form_id);
    });

    it('refuses form ids that are dot segments (URL resolution would leave /forms)', async () => {
      for (const form_id of ['..', '.', '%2E%2e']) {
        const error = await failure(h.connector().execute({ entity: 'forms', action: 'get', params: { form_id } }));
        expect(error.code, form_id).toBe('invalid_params');
        expect(error.errors[0]?.path).toBe('/params/form_id');
      }
    });
  },
});

describe('Typeform OAuth', () => {
  const sim = simulatorForAll(() => startTypeformSimulator({ forms: 2 }));

  it('refreshes an expired access token and hands back the rotated refresh token', async () => {
    const rotated: Record<string, unknown>[] = [];
    const credentials = {
      access_token: sim.expiredAccessToken,
      refresh_token: sim.initialRefreshToken,
      client_id: sim.clientId,
      client_secret: sim.clientSecret,
    };
    const settings = { baseUrl: sim.url, tokenUrl: `${sim.url}/oauth/token` };
    const connector = connectWith(
      typeformConnector,
      credentials,
      {},
      {
        ...settings,
        onCredentialsRotated: (c) => {
          rotated.push(c);
        },
      },
    );
    const result = await connector.execute(images);
    expect(result.type).toBe('json');
    expect(sim.refreshes).toEqual([sim.initialRefreshToken]);
    expect(rotated).toHaveLength(1);
    expect(rotated[0]!.refresh_token).not.toBe(sim.initialRefreshToken);
    expect(rotated[0]!.client_id).toBe(sim.clientId);

    // The old refresh token was rotated out: a copy still holding it cannot refresh.
    const stale = connectWith(typeformConnector, credentials, {}, settings);
    const error = await stale.execute(images).catch((e: unknown) => e);
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
      for (let i = 0; i < 5; i++) expect((await connector.execute(images)).type).toBe('json');
    } finally {
      await limited.close();
    }
  });
});
