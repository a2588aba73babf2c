/**
 * `pnpm bench:definitions`: sync throughput of a kind defined at run time against the same entity built in. The Orb
 * kind is exported in the definition format (GET /api/v1/catalog/Orb/definition), posted as a defined kind pointed at
 * the same upstream, and both replicate the same N customers, side by side in one run, in the order A B B A
 * (A built in, B defined). The upstream is the Orb simulator's data in a process of its own (sync-upstream.ts).
 *
 *   BENCH_RECORDS=50000  customers (default 50,000)
 *
 * A sync's time runs from the connector's creation (which enqueues its first sync) to `customers` being `ready`
 * with all N records. Both kinds are told the same request rate (1,000/s), so the upstream budget is not what is
 * measured. Prints each run and defined/built-in (mean rates; target ≥ 0.9).
 */
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { entityStatuses } from '../harness/connector-status.ts';
import { eventually, startTestPlatform } from '../harness/platform.ts';
import { spawnOrbUpstream } from './orb-upstream-process.ts';
import { fixed, table, verdict } from './stats.ts';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 50_000);
const START = '2023-01-01T00:00:00Z';
const RATE = 1000;
const DEFINED = 'Bench-Orb';

const upstream = await spawnOrbUpstream(
  { PATH: process.env.PATH, SYNC_UPSTREAM_CUSTOMERS: String(RECORDS), SYNC_UPSTREAM_FROM: START },
  new URL('./sync-upstream.ts', import.meta.url),
);
const platform = await startTestPlatform({
  overrides: { baseUrls: { ORB: upstream.url }, tokenUrls: {}, rateLimits: { ORB: RATE } },
  env: { LOG_LEVEL: 'warn', CONNECTOR_EGRESS_ALLOW: new URL(upstream.url).host },
});

try {
  const exported = (await (await platform.call('GET', '/api/v1/catalog/Orb/definition')).json()) as {
    definition: Record<string, unknown> & { entities: Record<string, unknown> };
  };
  const definition = {
    ...exported.definition,
    name: DEFINED,
    base_url: upstream.url,
    rate_limit: { per_second: RATE, scope: 'the benchmark' },
    // The entity the benchmark measures; the built-in connector syncs the others too, but the upstream has none.
    entities: { customers: exported.definition.entities.customers },
  };
  const posted = await platform.call('POST', '/api/v1/connector-definitions', definition);
  if (posted.status !== 201) throw new Error(`definition refused: ${posted.status} ${await posted.text()}`);

  const runs: { label: string; kind: string; seconds: number; rate: number; load: string }[] = [];
  let created = 0;
  for (const [label, kind] of [
    ['A', 'Orb'],
    ['B', DEFINED],
    ['B', DEFINED],
    ['A', 'Orb'],
  ] as const) {
    const started = performance.now();
    const response = await platform.call('POST', '/api/v1/integrations/connectors', {
      customer_name: 'bench',
      connector_type: kind,
      name: `bench-${++created}`,
      credentials: { api_key: upstream.apiKey },
      replication_config: { start_date: START },
    });
    if (response.status !== 201) throw new Error(`create failed: ${response.status} ${await response.text()}`);
    const id = ((await response.json()) as { connector_id: string }).connector_id;
    await eventually(
      async () => {
        const status = (await entityStatuses(platform, id)).customers;
        if (status?.error) throw new Error(`sync failed: ${status.error}`);
        return status?.status === 'ready' && !status.running && status.record_count === RECORDS ? status : undefined;
      },
      3_600_000,
      100,
    );
    const seconds = (performance.now() - started) / 1000;
    const load = loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
    runs.push({ label, kind, seconds, rate: RECORDS / seconds, load });
    console.log(`${label} ${kind}: ${RECORDS} customers in ${seconds.toFixed(1)} s (load ${load})`);
    await platform.call('DELETE', `/api/v1/integrations/connectors/${id}`);
  }
  const mean = (label: string) => {
    const of = runs.filter((r) => r.label === label);
    return of.reduce((sum, r) => sum + r.rate, 0) / of.length;
  };
  const ratio = mean('B') / mean('A');
  console.log(`\n=== bench:definitions: ${RECORDS} Orb customers, runs A B B A ===\n`);
  console.log(
    table(
      ['run', 'kind', 'sync s', 'rec/s', 'load'],
      runs.map((r) => [r.label, r.kind, r.seconds.toFixed(1), String(Math.round(r.rate)), r.load]),
    ),
  );
  console.log(`\ndefined/built-in = ${fixed(ratio)} (mean rates; target >= 0.9) ${verdict(ratio >= 0.9)}`);
} finally {
  await platform.close();
  upstream.process.kill('SIGTERM');
  if (upstream.process.exitCode === null) await once(upstream.process, 'exit');
}
