import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnector } from '../harness/create-connector.ts';
import { orbSettings, startOrbPlatform } from '../harness/orb-connector.ts';
import { closeInOrder, type TestPlatform } from '../harness/platform.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';

/** Cases of the every-route property; FUZZ_RUNS raises it (20,000 for the long run). */
const RUNS = Number(process.env.FUZZ_RUNS ?? 500);

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', ' ', '%', '%zz', '../..', '\u0000'),
);
const isoOrJunk = fc.oneof(fc.constantFrom('2024-01-01T00:00:00Z', '2024-13-45', '', 'yesterday'), fc.string());

/** Bodies each route takes, near-valid and not (so validation, not only the JSON parser, is exercised). */
const bodies = {
  create: fc.record(
    {
      customer_name: fc.oneof(fc.string(), jsonValue),
      connector_type: fc.oneof(fc.constantFrom('Orb', 'orb', 'Typeform', 'Google-Ads', 'Nope'), fc.string()),
      name: fc.oneof(fc.string(), jsonValue),
      credentials: fc.oneof(fc.dictionary(fc.constantFrom('api_key', 'access_token', 'x'), fc.string()), jsonValue),
      replication_config: fc.oneof(fc.record({ start_date: isoOrJunk }), jsonValue),
      config: jsonValue,
    },
    { requiredKeys: [] },
  ),
  patch: fc.record(
    {
      name: fc.oneof(fc.string(), jsonValue),
      credentials: fc.oneof(fc.dictionary(fc.constantFrom('api_key', 'x'), fc.string()), jsonValue),
      webhook_secret: fc.oneof(fc.string(), fc.constant(null), jsonValue),
      replication_config: jsonValue,
    },
    { requiredKeys: [] },
  ),
  sync: fc.record(
    { entity: fc.oneof(fc.constantFrom('customers', 'invoices', 'nope', ''), jsonValue), mode: jsonValue },
    { requiredKeys: [] },
  ),
  execute: fc.record(
    {
      entity: fc.oneof(fc.constantFrom('customers', 'invoices', 'plans', '__proto__'), fc.string()),
      action: fc.oneof(fc.constantFrom('list', 'get', 'search', 'create', 'download'), fc.string()),
      params: fc.oneof(fc.dictionary(fc.string(), jsonValue), jsonValue),
    },
    { requiredKeys: [] },
  ),
  initiate: fc.record(
    {
      customer_name: fc.oneof(fc.string(), jsonValue),
      connector_type: fc.oneof(fc.constantFrom('Typeform', 'Orb', 'Google-Drive', 'Nope'), fc.string()),
      redirect_url: fc.oneof(fc.constantFrom('https://app.example.test/done', 'javascript:alert(1)', ''), fc.string()),
      name: jsonValue,
      config: jsonValue,
      replication_config: jsonValue,
    },
    { requiredKeys: [] },
  ),
  token: fc.record(
    {
      grant_type: fc.oneof(fc.constantFrom('client_credentials', 'password', ''), fc.string()),
      client_id: fc.oneof(fc.string(), jsonValue),
      client_secret: fc.oneof(fc.string(), jsonValue),
      scope: jsonValue,
    },
    { requiredKeys: [] },
  ),
  webhook: fc.oneof(
    fc.record({ id: fc.string(), type: fc.string(), created_at: isoOrJunk, data: jsonValue }, { requiredKeys: [] }),
    fc.record({ event_id: fc.string(), form_response: jsonValue }, { requiredKeys: [] }),
  ),
  endpoint: fc.record(
    {
      url: fc.oneof(
        fc.constantFrom('https://hooks.example.com/x', 'http://127.0.0.1:9/x', 'https://10.0.0.1/', ''),
        fc.string(),
      ),
      description: fc.oneof(fc.string(), jsonValue),
      connector_ids: jsonValue,
      entities: fc.oneof(fc.constant(['customers']), jsonValue),
      types: fc.oneof(fc.constant(['record.updated']), jsonValue),
      enabled: jsonValue,
    },
    { requiredKeys: [] },
  ),
  replay: fc.record(
    {
      after: fc.oneof(fc.constantFrom('0', '1', 'latest', '99999999999999999999'), fc.string()),
      connector_id: jsonValue,
    },
    { requiredKeys: [] },
  ),
  mcp: fc.record(
    {
      jsonrpc: fc.oneof(fc.constant('2.0'), jsonValue),
      id: fc.oneof(fc.integer(), fc.string(), jsonValue),
      method: fc.oneof(fc.constantFrom('initialize', 'tools/list', 'tools/call', 'ping'), fc.string()),
      params: jsonValue,
    },
    { requiredKeys: [] },
  ),
};

type RouteName = keyof typeof bodies | 'none';
interface Route {
  readonly methods: readonly string[];
  /** `{id}` is replaced by a connector id (real or not). */
  readonly path: string;
  readonly body: RouteName;
  /** Query keys this route reads. */
  readonly query?: readonly string[];
}

/** Every route of the API (apps/api/src/app.ts), with the methods it serves and some it does not. */
const ROUTES: readonly Route[] = [
  { methods: ['GET', 'POST'], path: '/healthz', body: 'none' },
  { methods: ['GET'], path: '/readyz', body: 'none' },
  { methods: ['GET'], path: '/metrics', body: 'none' },
  { methods: ['GET'], path: '/openapi.json', body: 'none' },
  { methods: ['GET'], path: '/docs', body: 'none' },
  { methods: ['GET'], path: '/api/v1/catalog', body: 'none' },
  { methods: ['GET'], path: '/api/v1/catalog/{kind}', body: 'none' },
  { methods: ['POST', 'GET'], path: '/api/v1/oauth/token', body: 'token' },
  {
    methods: ['GET', 'POST', 'PUT'],
    path: '/api/v1/integrations/connectors',
    body: 'create',
    query: ['limit', 'cursor'],
  },
  { methods: ['GET', 'PATCH', 'DELETE', 'PUT'], path: '/api/v1/integrations/connectors/{id}', body: 'patch' },
  { methods: ['POST', 'GET'], path: '/api/v1/integrations/connectors/{id}/sync', body: 'sync' },
  { methods: ['POST', 'GET'], path: '/api/v1/integrations/connectors/{id}/execute', body: 'execute' },
  { methods: ['POST', 'GET'], path: '/api/v1/integrations/connectors/{id}/webhooks', body: 'webhook' },
  { methods: ['POST', 'GET'], path: '/api/v1/integrations/connectors/oauth/initiate', body: 'initiate' },
  {
    methods: ['GET', 'POST'],
    path: '/api/v1/integrations/connectors/oauth/callback',
    body: 'none',
    query: ['state', 'code', 'error', 'error_description', 'iss'],
  },
  {
    methods: ['GET', 'POST'],
    path: '/api/v1/integrations/connectors/{id}/changes',
    body: 'none',
    query: ['after', 'limit', 'entity'],
  },
  { methods: ['GET', 'POST', 'PUT'], path: '/api/v1/webhook-endpoints', body: 'endpoint' },
  // `{id}` is a connector id here, hence no endpoint: 404s, which must be problem+json like the rest.
  { methods: ['GET', 'PATCH', 'DELETE'], path: '/api/v1/webhook-endpoints/{id}', body: 'endpoint' },
  { methods: ['GET'], path: '/api/v1/webhook-endpoints/{id}/deliveries', body: 'none', query: ['status', 'limit'] },
  { methods: ['POST'], path: '/api/v1/webhook-endpoints/{id}/replay', body: 'replay' },
  { methods: ['POST', 'GET', 'DELETE'], path: '/mcp', body: 'mcp' },
];

const contentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/x-www-form-urlencoded',
    'text/plain',
    'multipart/form-data; boundary=x',
    'application/problem+json',
  ),
  fc.string(),
);
/** Headers besides content-type: auth variants, vendors' signature headers, junk. */
const headerName = fc.oneof(
  fc.constantFrom(
    'accept',
    'x-request-id',
    'x-orb-signature',
    'x-orb-timestamp',
    'typeform-signature',
    'sentry-hook-signature',
    'webhook-signature',
    'webhook-timestamp',
    'webhook-id',
    'x-zendesk-webhook-signature',
    'x-zendesk-webhook-signature-timestamp',
    'mcp-session-id',
    'mcp-protocol-version',
    'content-length',
    'if-none-match',
  ),
  fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
);
const headerValue = fc.oneof(
  fc.string(),
  fc.stringMatching(/^[ -~]{0,40}$/),
  fc.constantFrom('', 'v1=abc', 'sha256=00'),
);

interface Case {
  route: Route;
  method: string;
  id: 'real' | 'sacrificial' | 'unknown' | 'junk';
  junkId: string;
  kind: string;
  query: [string, string][];
  auth: 'valid' | 'lowercase' | 'none' | 'junk' | 'basic';
  junkAuth: string;
  contentType: string | null;
  headers: [string, string][];
  body:
    | { type: 'json'; value: unknown }
    | { type: 'raw'; value: string }
    | { type: 'form'; value: [string, string][] }
    | { type: 'none' };
}

const caseArb: fc.Arbitrary<Case> = fc.constantFrom(...ROUTES).chain((route) =>
  fc.record({
    route: fc.constant(route),
    method: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...route.methods) },
      fc.constantFrom('HEAD', 'OPTIONS', 'PATCH', 'PUT', 'DELETE'),
    ),
    id: fc.constantFrom('real', 'real', 'sacrificial', 'unknown', 'junk'),
    junkId: text,
    kind: fc.oneof(fc.constantFrom('Orb', 'orb', 'Google-Ads', 'nope'), text),
    query: fc.array(
      fc.tuple(
        fc.oneof(fc.constantFrom(...(route.query ?? ['x']), 'limit', 'cursor'), fc.string()),
        fc.oneof(text, fc.constant('')),
      ),
      { maxLength: 4 },
    ),
    auth: fc.constantFrom('valid', 'valid', 'valid', 'lowercase', 'none', 'junk', 'basic'),
    junkAuth: fc.stringMatching(/^[ -~]{0,60}$/),
    contentType: fc.option(contentType, { nil: null }),
    headers: fc.array(fc.tuple(headerName, headerValue), { maxLength: 4 }),
    body: fc.oneof(
      {
        weight: 5,
        arbitrary: (route.body === 'none' ? jsonValue : (bodies[route.body] as fc.Arbitrary<unknown>)).map((value) => ({
          type: 'json' as const,
          value,
        })),
      },
      { weight: 1, arbitrary: jsonValue.map((value) => ({ type: 'json' as const, value })) },
      { weight: 1, arbitrary: text.map((value) => ({ type: 'raw' as const, value })) },
      {
        weight: 1,
        arbitrary: fc
          .array(fc.tuple(fc.string(), fc.string()), { maxLength: 4 })
          .map((value) => ({ type: 'form' as const, value })),
      },
      { weight: 1, arbitrary: fc.constant({ type: 'none' as const }) },
    ),
  }),
);

describe('fuzzing every route: methods, path ids, query strings, headers and bodies', () => {
  let sim: SimulatorHandle;
  let platform: TestPlatform;
  let token: string;
  let realId: string;
  let sacrificialId: string;
  const counts = { cases: 0, byStatus: new Map<number, number>(), byRoute: new Map<string, number>() };
  const findings: string[] = [];

  beforeAll(async () => {
    ({ sim, platform } = await startOrbPlatform({
      size: 10,
      worker: false,
      env: { RATE_LIMIT_PER_MINUTE: '100000000' },
    }));
    token = await platform.token();
    const create = (name: string) =>
      createConnector(platform, { customer_name: 'fuzz-routes', name, ...orbSettings(sim) });
    realId = await create('real');
    sacrificialId = await create('sacrificial');
    // With a webhook secret, webhook deliveries reach the signature checks (without one they stop at 401 at once).
    const secret = await platform.call('PATCH', `/api/v1/integrations/connectors/${realId}`, {
      webhook_secret: 'fuzz-webhook-secret-0123456789',
    });
    expect(secret.status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    const statuses = [...counts.byStatus.entries()].sort((a, b) => a[0] - b[0]);
    console.log(
      `fuzz every route: ${counts.cases} cases; statuses ${statuses.map(([s, n]) => `${s}:${n}`).join(' ')}; ` +
        `5xx: ${statuses.filter(([s]) => s >= 500).reduce((sum, [, n]) => sum + n, 0)}; routes ` +
        [...counts.byRoute.entries()].map(([r, n]) => `${r}:${n}`).join(' '),
    );
    if (findings.length > 0) console.log(`fuzz findings:\n${findings.slice(0, 20).join('\n')}`);
    await closeInOrder(platform, sim);
  });

  const send = async (c: Case) => {
    const id =
      c.id === 'real'
        ? realId
        : c.id === 'sacrificial'
          ? sacrificialId
          : c.id === 'unknown'
            ? randomUUID()
            : encodeURIComponent(c.junkId) || 'x';
    // DELETE only ever hits the sacrificial connector or ids that do not exist: the real one must survive.
    const safeId = c.method === 'DELETE' && id === realId ? sacrificialId : id;
    const path = c.route.path.replace('{id}', safeId).replace('{kind}', encodeURIComponent(c.kind) || 'x');
    const query = new URLSearchParams(c.query).toString();
    const headers = new Headers();
    for (const [name, value] of c.headers) {
      try {
        headers.set(name, value);
      } catch {
        // not a valid header value: a client could not send it either
      }
    }
    if (c.auth === 'valid') headers.set('authorization', `Bearer ${token}`);
    if (c.auth === 'lowercase') headers.set('authorization', `bearer ${token}`);
    if (c.auth === 'basic') headers.set('authorization', `Basic ${Buffer.from('a:b').toString('base64')}`);
    if (c.auth === 'junk') {
      try {
        headers.set('authorization', c.junkAuth);
      } catch {
        headers.delete('authorization');
      }
    }
    if (c.contentType !== null) {
      try {
        headers.set('content-type', c.contentType);
      } catch {
        // idem
      }
    }
    headers.delete('content-length');
    let body: string | undefined;
    if (c.method !== 'GET' && c.method !== 'HEAD' && c.body.type !== 'none') {
      body =
        c.body.type === 'json'
          ? JSON.stringify(c.body.value)
          : c.body.type === 'form'
            ? new URLSearchParams(c.body.value).toString()
            : c.body.value;
    }
    const response = await platform.app.request(`${path}${query ? `?${query}` : ''}`, {
      method: c.method,
      headers,
      ...(body === undefined ? {} : { body }),
    });
    const responseText = await response.text();
    return { status: response.status, type: response.headers.get('content-type') ?? '', text: responseText, path };
  };

  it(`never answers 5xx, and answers /api errors as problem+json (${RUNS} cases)`, async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const result = await send(c);
        counts.cases++;
        counts.byStatus.set(result.status, (counts.byStatus.get(result.status) ?? 0) + 1);
        counts.byRoute.set(c.route.path, (counts.byRoute.get(c.route.path) ?? 0) + 1);
        if (result.status >= 500) {
          findings.push(
            `${result.status} ${c.method} ${result.path} auth=${c.auth} ct=${c.contentType} ` +
              `body=${JSON.stringify(c.body).slice(0, 200)}: ${result.text.slice(0, 300)}`,
          );
        }
        expect(result.status, `${c.method} ${result.path}: ${result.text.slice(0, 300)}`).toBeLessThan(500);
        if (result.status >= 400 && result.path.startsWith('/api/') && c.method !== 'HEAD') {
          expect(result.type, `${c.method} ${result.path}`).toContain('application/problem+json');
        }
      }),
      { numRuns: RUNS },
    );
  }, 1_800_000);
});
