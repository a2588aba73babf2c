import { ACTIONS } from '@conduit/connectors';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnector } from '../harness/create-connector.ts';
import { orbSettings, startOrbPlatform } from '../harness/orb-connector.ts';
import { closeInOrder, type TestPlatform } from '../harness/platform.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';

/** Cases per property; FUZZ_RUNS raises it for longer runs. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 500);

const entityName = fc.oneof(fc.constantFrom('customers', 'subscriptions', 'plans', 'invoices'), fc.string());
const actionName = fc.oneof(fc.constantFrom(...ACTIONS), fc.string());
const jsonValue = fc.jsonValue({ maxDepth: 4 });
const filter = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    fc.dictionary(
      fc.constantFrom('eq', 'neq', 'gt', 'lt', 'in', 'like', 'fuzzy', 'keyword', 'contains'),
      fc.dictionary(fc.constantFrom('id', 'name', 'created_at', 'email', 'nope', 'billing_address.city'), jsonValue),
    ),
    fc.record({ and: fc.array(tie('node'), { maxLength: 3 }) }),
    fc.record({ or: fc.array(tie('node'), { maxLength: 3 }) }),
    fc.record({ not: tie('node') }),
    jsonValue,
  ),
}));
const searchParams = fc.record(
  {
    query: fc.oneof(
      fc.record(
        {
          filter: filter.node,
          sort: fc.array(fc.dictionary(fc.constantFrom('id', 'name', 'x'), fc.constantFrom('asc', 'desc', 'up'))),
        },
        { requiredKeys: [] },
      ),
      jsonValue,
    ),
    limit: fc.oneof(fc.integer({ min: -5, max: 20000 }), jsonValue),
    cursor: fc.oneof(fc.string(), jsonValue),
    fields: fc.oneof(fc.array(fc.constantFrom('id', 'name', 'nope', 'billing_address.city')), jsonValue),
  },
  { requiredKeys: [] },
);
const executeBody = fc.oneof(
  fc.record(
    { entity: entityName, action: actionName, params: fc.oneof(fc.dictionary(fc.string(), jsonValue), searchParams) },
    { requiredKeys: [] },
  ),
  fc.record({ entity: entityName, action: fc.constant('search'), params: searchParams }),
  jsonValue,
);
const createBody = fc.oneof(
  fc.record(
    {
      customer_name: fc.oneof(fc.string(), jsonValue),
      connector_type: fc.oneof(
        fc.constantFrom('Orb', 'orb', 'Zendesk-Talk', 'Paypal-Transaction', 'Nope'),
        fc.string(),
      ),
      name: fc.oneof(fc.string(), jsonValue),
      credentials: fc.oneof(
        fc.dictionary(fc.constantFrom('api_key', 'email', 'api_token', 'access_token', 'x'), fc.string()),
        jsonValue,
      ),
      replication_config: fc.oneof(
        fc.record({ start_date: fc.oneof(fc.constantFrom('2024-01-01T00:00:00Z', '2024-13-01', ''), fc.string()) }),
        jsonValue,
      ),
      config: jsonValue,
    },
    { requiredKeys: [] },
  ),
  jsonValue,
);

describe('fuzzing execute and create bodies', () => {
  let sim: SimulatorHandle;
  let platform: TestPlatform;
  let connectorId: string;
  let token: string;
  const findings: string[] = [];

  beforeAll(async () => {
    ({ sim, platform } = await startOrbPlatform({
      size: 10,
      worker: false,
      env: { RATE_LIMIT_PER_MINUTE: '1000000' },
    }));
    token = await platform.token();
    connectorId = await createConnector(platform, { customer_name: 'fuzz', name: 'fuzz', ...orbSettings(sim) });
  });
  afterAll(async () => {
    if (findings.length > 0) console.log(`fuzz findings:\n${findings.join('\n')}`);
    await closeInOrder(platform, sim);
  });

  const send = async (path: string, body: unknown, raw = false) => {
    const response = await platform.app.request(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: raw ? String(body) : JSON.stringify(body),
    });
    return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
  };

  const neverA5xx = (result: { status: number; type: string; text: string }, body: unknown) => {
    if (result.status >= 500)
      findings.push(`${result.status} for ${JSON.stringify(body).slice(0, 300)}: ${result.text.slice(0, 300)}`);
    expect(result.status).toBeLessThan(500);
    if (result.status >= 400) {
      expect(result.type).toContain('application/problem+json');
      const problem = JSON.parse(result.text) as { status: number; code: string };
      expect(problem.status).toBe(result.status);
      expect(typeof problem.code).toBe('string');
    }
  };

  it(`execute: never a 5xx, always problem+json on error (${RUNS} cases)`, async () => {
    await fc.assert(
      fc.asyncProperty(executeBody, async (body) => {
        neverA5xx(await send(`/api/v1/integrations/connectors/${connectorId}/execute`, body), body);
      }),
      { numRuns: RUNS },
    );
  }, 600_000);

  it(`create: never a 5xx, always problem+json on error (${RUNS} cases)`, async () => {
    await fc.assert(
      fc.asyncProperty(createBody, async (body) => {
        neverA5xx(await send('/api/v1/integrations/connectors', body), body);
      }),
      { numRuns: RUNS },
    );
  }, 600_000);

  // Regression, found by this fuzzer: `entities['toString']` is Object.prototype.toString, which made a 500.
  it.each(['toString', '__proto__', 'constructor', 'hasOwnProperty'])(
    'entity %s is an unknown entity, not a 500',
    async (entity) => {
      for (const action of ['search', 'list']) {
        const result = await send(`/api/v1/integrations/connectors/${connectorId}/execute`, {
          entity,
          action,
          params: {},
        });
        expect(result.status).toBe(400);
        expect(JSON.parse(result.text).code).toBe('unsupported_action');
      }
    },
  );

  it('malformed JSON is a 400 naming the body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), async (text) => {
        fc.pre(!isJson(text));
        const result = await send(`/api/v1/integrations/connectors/${connectorId}/execute`, text, true);
        expect(result.status).toBe(400);
      }),
      { numRuns: 200 },
    );
  });
});

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return text.trim() !== '';
  } catch {
    return false;
  }
}
