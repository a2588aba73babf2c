import { ConnectorError, connect, UpstreamError } from '@conduit/connectors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';
import { startOrb } from '../simulators/orb/simulator.ts';

describe('Orb in direct mode', () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await startOrb({ size: 30 });
  });
  afterAll(() => sim.close());

  const orb = () => connect('orb', sim.credentials, sim.config, { baseUrl: sim.baseUrl });

  it('lists customers one page at a time with next_cursor', async () => {
    const first = await orb().execute({ entity: 'customers', action: 'list', params: { limit: 7 } });
    if (first.type !== 'json') throw new Error('expected json');
    expect(first.body.data).toHaveLength(7);
    expect(typeof first.body.meta?.next_cursor).toBe('string');
  });

  it('answers every example call', async () => {
    for (const example of sim.examples) {
      const result = await orb().execute(example);
      expect(result.type, `${example.entity} ${example.action}`).toBe('json');
    }
  });

  it('rejects an out-of-bounds limit naming the parameter', async () => {
    const error = await orb()
      .execute({ entity: 'customers', action: 'list', params: { limit: 1000 } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect((error as ConnectorError).errors[0]?.path).toBe('/params/limit');
  });

  it('says search exists only in hosted mode', async () => {
    const error = await orb()
      .execute({ entity: 'customers', action: 'search', params: {} })
      .catch((e: unknown) => e);
    expect((error as ConnectorError).code).toBe('unsupported_mode');
  });

  it('maps a rejected key to upstream_auth_failed without echoing it', async () => {
    const error = await connect('Orb', sim.badCredentials, {}, { baseUrl: sim.baseUrl })
      .execute({ entity: 'plans', action: 'list', params: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).code).toBe('upstream_auth_failed');
    expect(JSON.stringify(error)).not.toContain('wrong-key');
  });

  it('rides out a 429 storm honouring Retry-After', async () => {
    sim.faults.add({ status: 429, count: 3, retryAfterSeconds: 0 });
    const result = await orb().execute({ entity: 'plans', action: 'list', params: {} });
    expect(result.type).toBe('json');
  });
});
