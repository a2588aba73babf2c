import { connect } from '@conduit/connectors';
import { expect, it } from 'vitest';
import { orbConnector } from '../../packages/connectors/src/kinds/orb/connector.ts';
import { startOrb } from '../simulators/orb/simulator.ts';
import { describeConnectorConformance } from './conformance.ts';
import { echoedCredentials, retryAfterStorm } from './conformance-presets.ts';

const plans = { entity: 'plans', action: 'list', params: {} };

describeConnectorConformance({
  name: 'Orb in direct mode',
  definition: orbConnector,
  start: () => startOrb({ size: 250 }),
  invalid: [{ entity: 'customers', action: 'list', params: { limit: 1000 }, path: '/params/limit', only: true }],
  storms: [retryAfterStorm(plans)],
  auth: { request: plans, secrets: () => ['wrong-key'] },
  echo: echoedCredentials(plans, ['api_key'], (planted) => ({
    status: 400,
    body: { status: 400, title: 'Bad request', detail: planted },
  })),
  replication: {},
  resume: [{ entity: 'customers', pageSize: 100 }],
  specific: (h) => {
    it('lists customers one page at a time with next_cursor', async () => {
      const sim = h.sim();
      const first = await connect('orb', sim.credentials, sim.config, { baseUrl: sim.baseUrl }).execute({
        entity: 'customers',
        action: 'list',
        params: { limit: 7 },
      });
      if (first.type !== 'json') throw new Error('expected json');
      expect(first.body.data).toHaveLength(7);
      expect(typeof first.body.meta?.next_cursor).toBe('string');
    });

    it('maps a rejected key to upstream_auth_failed through connect() without config', async () => {
      const sim = h.sim();
      const error = await connect('Orb', sim.badCredentials, {}, { baseUrl: sim.baseUrl })
        .execute(plans)
        .catch((e: unknown) => e);
      expect((error as { code?: string }).code).toBe('upstream_auth_failed');
      expect(JSON.stringify(error)).not.toContain('wrong-key');
    });
  },
});
