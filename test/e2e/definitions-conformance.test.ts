import { findConnectorDefinition } from '@conduit/connectors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchAllIds, waitForEntity } from '../harness/connector-status.ts';
import { ALL_ENTITIES_AT_ONCE, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { SIMULATORS } from '../simulators/index.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';

/**
 * Is the definition format expressive enough for real APIs? Each built-in kind is exported in it
 * (GET /api/v1/catalog/{kind}/definition), renamed, registered as a kind defined at run time, pointed at the kind's
 * simulator (through CONNECTOR_EGRESS_ALLOW), and put through the checks the built-in kinds pass: a full sync whose
 * ids equal the simulator's, a search by key, a get, and list paging to the end. A kind passes when every entity it
 * replicates was exported and passes; the table this file prints lists each kind (docs/definitions.md).
 */

type Definition = Record<string, unknown> & {
  name: string;
  base_url: string;
  auth: AuthMethod | AuthMethod[];
  entities: Record<
    string,
    {
      key: string;
      replication?: unknown;
      get?: { path: string };
      list?: { paging: { type: string; param?: string }; path: string };
    }
  >;
};
type AuthMethod = { type: string; token_url?: string };

/** What a kind's simulator credentials are under the definition's auth (the definition names its own fields). */
function credentialsFor(auth: readonly AuthMethod[], sim: SimulatorHandle): Record<string, unknown> {
  const c = sim.credentials as Record<string, string | undefined>;
  for (const method of auth) {
    if (method.type === 'oauth2' && c.client_id) {
      return Object.fromEntries(
        ['client_id', 'client_secret', 'refresh_token', 'access_token'].flatMap((k) => (c[k] ? [[k, c[k]]] : [])),
      );
    }
    if (method.type === 'basic' && c.email && c.api_token)
      return { username: `${c.email}/token`, password: c.api_token };
    if (method.type === 'bearer' && (c.access_token ?? c.auth_token ?? c.api_key)) {
      return { access_token: c.access_token ?? c.auth_token ?? c.api_key };
    }
    if (method.type === 'api_key' && c.api_key) return { api_key: c.api_key };
  }
  return {};
}

const results: { kind: string; replicated: number; exported: number; passed: string[]; status: string }[] = [];

describe('the built-in kinds, exported as definitions and run as kinds defined at run time', () => {
  const sims = new Map<string, SimulatorHandle>();
  let platform: TestPlatform;

  beforeAll(async () => {
    for (const [kind, start] of Object.entries(SIMULATORS)) sims.set(kind, await start({ size: 12 }));
    const hosts = [...sims.values()].flatMap((sim) =>
      [sim.baseUrl, sim.tokenUrl].flatMap((url) => (url ? [new URL(url.replaceAll(/\{[^}]*\}/g, 'x')).host] : [])),
    );
    platform = await startTestPlatform({
      env: { ...ALL_ENTITIES_AT_ONCE, CONNECTOR_EGRESS_ALLOW: [...new Set(hosts)].join(',') },
    });
  }, 120_000);

  afterAll(async () => {
    console.log(
      `\nbuilt-in kinds as definitions:\n${results
        .map((r) => `  ${r.kind.padEnd(20)} ${r.exported}/${r.replicated} replicated entities expressible, ${r.status}`)
        .join('\n')}\n`,
    );
    await platform?.close();
    for (const sim of sims.values()) await sim.close();
  });

  it.each(Object.keys(SIMULATORS))(
    '%s',
    async (kind) => {
      const sim = sims.get(kind)!;
      const builtIn = findConnectorDefinition(kind)!.catalog;
      const replicated = Object.values(builtIn.entities)
        .filter((e) => e.sync && e.searchable)
        .map((e) => e.name);
      const exported = (await (await platform.call('GET', `/api/v1/catalog/${kind}/definition`)).json()) as {
        definition: Definition;
        unexpressed: { path: string; reason: string }[];
      };
      const definition = exported.definition;
      const synced = Object.keys(definition.entities).filter((name) => definition.entities[name]!.replication);
      const row = { kind, replicated: replicated.length, exported: synced.length, passed: [] as string[], status: '' };
      results.push(row);
      if (synced.length === 0) {
        row.status = `not expressible: ${exported.unexpressed.map((u) => `${u.path} ${u.reason}`).join('; ')}`;
        return;
      }
      const auths = (Array.isArray(definition.auth) ? definition.auth : [definition.auth]).map((a) =>
        a.token_url && sim.tokenUrl ? { ...a, token_url: sim.tokenUrl } : a,
      );
      const name = `Def-${kind}`;
      const posted = await platform.call('POST', '/api/v1/connector-definitions', {
        ...definition,
        name,
        base_url: sim.baseUrl,
        auth: auths,
        // The simulators enforce no plan's limit; paced at the vendor's rate the syncs would mostly wait.
        rate_limit: { per_second: 1000, scope: 'the simulator' },
      });
      expect(posted.status, await posted.clone().text()).toBe(201);
      const created = await platform.call('POST', '/api/v1/integrations/connectors', {
        customer_name: 'definitions',
        connector_type: name,
        name,
        credentials: credentialsFor(auths, sim),
        config: sim.config,
        replication_config: sim.replicationConfig,
      });
      expect(created.status, await created.clone().text()).toBe(201);
      const connectorId = ((await created.json()) as { connector_id: string }).connector_id;
      const execute = (body: unknown) =>
        platform.call('POST', `/api/v1/integrations/connectors/${connectorId}/execute`, body);

      for (const entity of synced) {
        const spec = definition.entities[entity]!;
        const status = await waitForEntity(
          platform,
          connectorId,
          entity,
          (s) => s.status === 'ready' || s.status === 'failed',
          120_000,
        );
        expect(status.error, `${kind} ${entity}`).toBeNull();
        const expected = [...new Set(sim.expectedKeys(entity))].sort();
        const ids = await searchAllIds(platform, connectorId, entity, spec.key);
        expect(ids.sort(), `${kind} ${entity} ids`).toEqual(expected);
        if (expected.length > 0) {
          const byKey = await execute({
            entity,
            action: 'search',
            params: { query: { filter: { eq: { [spec.key]: expected[0] } } } },
          });
          expect(((await byKey.json()) as { data: unknown[] }).data, `${kind} ${entity} by key`).toHaveLength(1);
        }
        if (spec.list && !spec.list.path.includes('{')) {
          // Live paging to the end: each page's next-page value back as its param, no page twice.
          const seen = new Set<string>();
          let params: Record<string, unknown> = {};
          for (let page = 0; page < 100; page++) {
            const response = await execute({ entity, action: 'list', params });
            expect(response.status, `${kind} ${entity} list: ${await response.clone().text()}`).toBe(200);
            const body = (await response.json()) as { meta?: Record<string, unknown> };
            const param = spec.list.paging.param;
            const next = param ? body.meta?.[param] : null;
            if (next === null || next === undefined || spec.list.paging.type === 'none') break;
            expect(seen.has(JSON.stringify(next)), `${kind} ${entity} paging repeats`).toBe(false);
            seen.add(JSON.stringify(next));
            params = { [param!]: next };
          }
        }
        row.passed.push(entity);
      }
      const whole = synced.length === replicated.length;
      row.status = whole
        ? 'PASSES as a definition'
        : `partly: ${replicated.filter((e) => !synced.includes(e)).join(', ')} not expressible`;
    },
    240_000,
  );

  it('passes whole for the kinds whose every replicated entity the format can say', () => {
    const whole = results.filter((r) => r.status.startsWith('PASSES')).map((r) => r.kind);
    expect(whole).toEqual(expect.arrayContaining(['Orb', 'Incident-Io']));
  });
});
