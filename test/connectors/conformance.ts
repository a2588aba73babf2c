import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../packages/connectors/src/connect.ts';
import { ACTIONS, entityActions } from '../../packages/connectors/src/core/catalog.ts';
import { connectWith } from '../../packages/connectors/src/core/connect.ts';
import type { ConnectorSettings, Params } from '../../packages/connectors/src/core/define-connector.ts';
import { UpstreamError } from '../../packages/connectors/src/core/errors.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';
import {
  at,
  collectPages,
  derivedInvalidCases,
  expectInvalid,
  failure,
  type InvalidCase,
  keyOf,
  keySpec,
  requiredParams,
} from './conformance-kit.ts';
import type { ConformanceHarness, ConformanceOptions, RequestOf } from './conformance-options.ts';

export type { ConformanceOptions } from './conformance-options.ts';

export const FAST_RETRY = { maxAttempts: 6, baseDelayMs: 1, maxDelayMs: 20, maxWaitMs: 5_000 };

/** Registers the common direct-mode checks for one connector kind (one describe block). */
export function describeConnectorConformance<H extends SimulatorHandle, C, K>(o: ConformanceOptions<H, C, K>): void {
  const { catalog } = o.definition;
  const entities = Object.values(catalog.entities);
  const syncEntities = entities.filter((e) => e.sync);

  describe(o.name, () => {
    let sim: H;
    beforeAll(async () => {
      sim = await o.start();
    });
    afterAll(() => sim.close());

    const connector = (settings: ConnectorSettings = {}, credentials = sim.credentials, config: unknown = sim.config) =>
      connectWith(o.definition, credentials, config, {
        baseUrl: sim.baseUrl,
        tokenUrl: sim.tokenUrl,
        ...o.settings,
        ...settings,
      });
    const request = (r: RequestOf<H>) => (typeof r === 'function' ? r(sim) : r);
    const h: ConformanceHarness<H> = {
      sim: () => sim,
      connector,
      async json(entity, action, params = {}) {
        const result = await connector().execute({ entity, action, params });
        if (result.type !== 'json') throw new Error(`${entity} ${action}: expected json`);
        return result.body;
      },
    };

    it('is registered under its connector_type, case-insensitively', async () => {
      const type = catalog.connectorType;
      const byName = connect(type.toLowerCase(), sim.credentials, sim.config, {
        baseUrl: sim.baseUrl,
        tokenUrl: sim.tokenUrl,
        ...o.settings,
      });
      expect(byName.connectorType).toBe(type);
      const example = sim.examples.find((e) => e.action === 'list') ?? sim.examples[0]!;
      expect(['json', 'stream']).toContain((await byName.execute(example)).type);
    });

    it('lists an example for every entity × live action of the specification', () => {
      for (const entity of entities) {
        for (const action of Object.keys(entity.actions)) {
          expect(
            sim.examples.some((e) => e.entity === entity.name && e.action === action),
            `${entity.name} ${action}`,
          ).toBe(true);
        }
      }
    });

    it('answers every example call with data, and lists with the Meta of the specification', async () => {
      for (const example of sim.examples) {
        const label = `${example.entity} ${example.action}`;
        const entity = catalog.entities[example.entity]!;
        const result = await connector().execute(example);
        if (example.action === 'download') {
          if (result.type !== 'stream') throw new Error(`${label}: expected a stream`);
          expect((await new Response(result.download.body).text()).length, label).toBeGreaterThan(0);
          o.checkExample?.(example, null, sim);
          continue;
        }
        if (result.type !== 'json') throw new Error(`${label}: expected json`);
        const { data, meta } = result.body;
        if (example.action === 'list') {
          expect(Array.isArray(data), label).toBe(true);
          expect((data as unknown[]).length, label).toBeGreaterThan(0);
          expect(Object.keys(meta ?? {}).sort(), label).toEqual(Object.keys(entity.meta ?? {}).sort());
        } else if (example.action === 'get') {
          const key = at(data, entity.recordKey);
          expect(key ?? undefined, label).toBeDefined();
          const spec = keySpec(entity.record, entity.recordKey);
          if (spec?.type === 'string') expect(key, label).toEqual(expect.any(String));
          if (spec?.type === 'integer') expect(Number.isInteger(key), label).toBe(true);
          if (typeof example.params.id === 'string') expect(String(key), label).toBe(example.params.id);
        } else {
          expect(data, label).toBeTruthy();
        }
        o.checkExample?.(example, result.body, sim);
      }
    });

    const required = requiredParams(catalog);
    if (required.length > 0) {
      it.each(required)(
        '$entity $action without $name is invalid_params at /params/$name',
        async ({ entity, action, name }) => {
          const path = `/params/${name}`;
          const execute = (c: InvalidCase) => connector().execute(c);
          await expectInvalid(execute, { entity, action, params: {}, path });
          if (!o.emptyAllowed?.includes(name))
            await expectInvalid(execute, { entity, action, params: { [name]: '' }, path });
          const example = sim.examples.find((e) => e.entity === entity && e.action === action)!;
          const { [name]: _omitted, ...params } = example.params;
          await expectInvalid(execute, { entity, action, params, path });
        },
      );
    }

    it('rejects every bound, probe value and unknown parameter the catalog implies, naming it', async () => {
      const cases = derivedInvalidCases(catalog, sim.examples);
      for (const covered of o.derivedCovers ?? [])
        expect(
          cases.some((c) => c.label?.startsWith(covered) || c.path === `/params/${covered}`),
          covered,
        ).toBe(true);
      const missingOrBound = cases.filter((c) => /^(missing|bound) /.test(c.label ?? ''));
      expect(missingOrBound.length).toBeGreaterThanOrEqual(o.minDerivedCases ?? 0);
      for (const c of cases) await expectInvalid((x) => connector().execute(x), c);
    });

    if (o.invalid?.length) {
      it.each(o.invalid)('rejects $entity $action at $path', async (c) => {
        await expectInvalid((x) => connector().execute(x), c);
      });
    }

    it('answers unknown entities and actions with unsupported_action listing the supported ones', async () => {
      const names = entities.map((e) => e.name);
      const cases = [...(o.unsupported ?? [])];
      for (const entity of entities) {
        const typo = entity.name.endsWith('s') ? entity.name.slice(0, -1) : `${entity.name}s`;
        if (!names.includes(typo)) cases.push({ entity: typo, action: 'list', mentions: entity.name });
        const supported = entityActions(entity);
        for (const action of [...ACTIONS, 'upsert'].filter((a) => !(supported as string[]).includes(a)))
          cases.push({ entity: entity.name, action, mentions: supported.join(', ') });
      }
      for (const c of cases) {
        const error = await failure(connector().execute({ entity: c.entity, action: c.action, params: {} }));
        expect(error.code, `${c.entity} ${c.action}`).toBe('unsupported_action');
        expect(error.errors[0]?.message, `${c.entity} ${c.action}`).toContain(c.mentions);
      }
      for (const entity of entities.filter((e) => e.searchable)) {
        const error = await failure(connector().execute({ entity: entity.name, action: 'search', params: {} }));
        expect(error.code, entity.name).toBe('unsupported_mode');
      }
    });

    it.each(o.storms)('rides out a storm: $label', async (storm) => {
      const before = sim.faults.requests.length;
      sim.faults.add(storm.fault);
      const call = request(storm.request);
      const result = await connector(storm.settings).execute(call);
      if (result.type !== 'json') throw new Error('expected json');
      if (call.action === 'list') expect((result.body.data as unknown[]).length).toBeGreaterThan(0);
      expect(sim.faults.requests.length - before).toBeGreaterThan(storm.fault.count);
    });

    it('maps rejected credentials to upstream_auth_failed without echoing any secret', async () => {
      const sets = o.auth.credentials?.(sim) ?? [sim.badCredentials];
      const secrets = o.auth.secrets?.(sim) ?? Object.values(sim.badCredentials).map(String);
      for (const credentials of sets) {
        const error = await failure(connector({}, credentials).execute(request(o.auth.request)));
        expect(error).toBeInstanceOf(UpstreamError);
        expect(error.code).toBe('upstream_auth_failed');
        for (const secret of secrets) {
          expect(JSON.stringify(error)).not.toContain(secret);
          expect(error.message).not.toContain(secret);
        }
      }
    });

    const echo = o.echo;
    if (echo) {
      it('redacts credentials the upstream echoes in an error body', async () => {
        const secrets = echo.secrets(sim);
        sim.faults.add(echo.fault(secrets.join(' ')));
        const error = await failure(connector().execute(request(echo.request)));
        expect(error).toBeInstanceOf(UpstreamError);
        expect(error.code).toBe('upstream_error');
        for (const secret of secrets) {
          expect(JSON.stringify(error)).not.toContain(secret);
          expect(error.message).not.toContain(secret);
        }
        expect((error as UpstreamError).upstreamBody).toContain('[REDACTED]');
      });
    }

    it('has a sync spec exactly for the searchable entities', () => {
      for (const entity of entities) expect(Boolean(entity.sync), entity.name).toBe(Boolean(entity.searchable));
    });

    const replication = o.replication;
    // A kind with nothing to replicate registers no replication test (its reason is in its options).
    if (!('notApplicable' in replication)) {
      it.each(syncEntities.map((e) => ({ name: e.name })))(
        'replicates $name from start_date to the expected keys',
        async ({ name }) => {
          const since = String(sim.replicationConfig.start_date);
          const parent = catalog.entities[name]!.sync?.parent;
          for (const config of replication.configs?.(sim) ?? [sim.config]) {
            const c = connector({}, sim.credentials, config);
            const parents: (Params | undefined)[] = parent
              ? (await collectPages(c.read(parent.entity, { since }), keyOf(catalog, parent.entity)))
                  .flatMap((p) => p.records)
                  .map((record) => ({ [parent.param]: record[parent.from] }))
              : [undefined];
            const keys: string[] = [];
            for (const parentParams of parents) {
              const pages = await collectPages(
                c.read(name, { since, ...(parentParams ? { parentParams } : {}) }),
                keyOf(catalog, name),
              );
              keys.push(...pages.flatMap((p) => p.keys));
            }
            expect(keys.length, name).toBeGreaterThan(0);
            expect(new Set(keys).size, `${name} has no duplicates`).toBe(keys.length);
            expect([...keys].sort(), name).toEqual([...sim.expectedKeys(name)].sort());
          }
        },
      );
      const verify = replication.verify;
      if (verify) it('replication leaves the kind-specific traces', () => verify(sim));
    }

    const resume = o.resume;
    if (!('notApplicable' in resume)) {
      it.each(resume.map((spec) => ({ ...spec, label: spec.label ?? spec.entity })))(
        'resumes $label from a mid-run checkpoint without gaps or repeats',
        async (spec) => {
          const since = spec.since?.(sim) ?? String(sim.replicationConfig.start_date);
          const parentParams = spec.parentParams ? await spec.parentParams(h) : undefined;
          const read = { since, ...(parentParams ? { parentParams } : {}) };
          const key = keyOf(catalog, spec.entity);
          const full = await collectPages(connector().read(spec.entity, read), key);
          const all = full.flatMap((p) => p.keys);
          expect(full.length).toBeGreaterThanOrEqual(spec.minPages ?? 2);
          if (spec.pages !== undefined) expect(full).toHaveLength(spec.pages);
          if (spec.total !== undefined) expect(all).toHaveLength(spec.total);
          if (spec.pageSize !== undefined)
            for (const page of full.slice(0, -1)) expect(page.keys).toHaveLength(spec.pageSize);
          expect(new Set(all).size).toBe(all.length);
          for (const page of full.slice(0, -1)) expect(page.checkpoint).toBeTruthy();
          if (!spec.openEnded) expect(full.at(-1)?.checkpoint ?? null).toBeNull();
          const n = full.length;
          for (const cut of spec.cuts ?? []) expect(cut, 'cut within the run').toBeLessThan(n);
          for (const cut of new Set(
            [1, 2, Math.floor(n / 2), n - 1, ...(spec.cuts ?? [])].filter((k) => k >= 1 && k < n),
          )) {
            const head = await collectPages(connector().read(spec.entity, read), key, cut);
            const rest = await collectPages(
              connector().read(spec.entity, { ...read, resume: head.at(-1)!.checkpoint }),
              key,
            );
            expect(
              [...head, ...rest].flatMap((p) => p.keys),
              `cut after page ${cut}`,
            ).toEqual(all);
          }
        },
      );
    }

    o.specific?.(h);
  });
}
