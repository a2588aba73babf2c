/**
 * `pnpm bench:embeddings-sync`: sync throughput of an entity with two embedded text fields (incident.io incidents:
 * `name` and `summary`) with search by meaning on against off, side by side in one run. incident.io's kind is
 * exported in the definition format and posted twice, pointed at the same simulator: once as it is (`embed`: name,
 * summary) and once without `embed`; both replicate the same N incidents, each with texts of its own, in the order
 * A B B A (A embeddings on, B off), a new connector each time (vectors are kept per connector, so none is reused).
 *
 *   BENCH_RECORDS=5000  incidents (default 5,000)
 *
 * Two times per run, from the connector's creation (which enqueues its first sync): until `incidents` is `ready`
 * with all N records (searchable by filter and words), and, with embeddings on, until every one of them also holds
 * its vector (the worker's embedding jobs, off the sync's path, in the same worker process). Prints each run, the
 * ratios on/off (mean rates; target ≥ 0.6), the load average, and the CPU time of the bench's process (API, worker,
 * simulator) over each: on a shared machine the rates measure the share the run got, the CPU time what it cost.
 */
import { loadavg } from 'node:os';
import { entityStatuses } from '../harness/connector-status.ts';
import { engineClient } from '../harness/engine-client.ts';
import { ALL_ENTITIES_AT_ONCE, eventually, startTestPlatform } from '../harness/platform.ts';
import { startIncidentIoSimulator } from '../simulators/incident-io/simulator.ts';
import { fixed, table, verdict } from './stats.ts';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 5000);
const START = '2024-06-01T00:00:00Z';
const KINDS = { A: 'Bench-Incidents-Embedded', B: 'Bench-Incidents-Plain' } as const;
const SYSTEMS = ['checkout', 'login', 'search', 'billing', 'webhooks', 'exports', 'mobile app', 'DNS', 'queue', 'CDN'];
const SYMPTOMS = ['timeouts', 'slow pages', '500 errors', 'missing data', 'failed payments', 'stale results'];

const sim = await startIncidentIoSimulator({ incidents: RECORDS });
// Texts of their own (an unchanged text is never embedded twice), as long as an incident's usually are.
sim.data.incidents = sim.data.incidents.map((incident, i) => ({
  ...incident,
  name: `${SYSTEMS[i % 10]} ${SYMPTOMS[i % 6]} for customers in region ${i % 13} (incident ${i})`,
  summary: `From ${i % 24}:00 UTC about ${(i * 37) % 1000} requests a minute to ${SYSTEMS[(i * 7) % 10]} saw ${SYMPTOMS[(i * 5) % 6]} after change ${i}; we rolled it back.`,
  updated_at: '2025-01-01T00:00:00Z',
}));
const platform = await startTestPlatform({
  overrides: { baseUrls: { INCIDENT_IO: sim.url }, tokenUrls: {} },
  env: { ...ALL_ENTITIES_AT_ONCE, LOG_LEVEL: 'warn', CONNECTOR_EGRESS_ALLOW: new URL(sim.url).host },
});
const engine = engineClient(platform.api.deps.env);

try {
  const exported = (await (await platform.call('GET', '/api/v1/catalog/Incident-Io/definition')).json()) as {
    definition: Record<string, unknown> & { entities: Record<string, Record<string, unknown>> };
  };
  const incidents = exported.definition.entities.incidents!;
  const { embed: _embed, ...withoutEmbed } = incidents;
  for (const [name, entity] of [
    [KINDS.A, incidents],
    [KINDS.B, withoutEmbed],
  ] as const) {
    const posted = await platform.call('POST', '/api/v1/connector-definitions', {
      ...exported.definition,
      name,
      base_url: sim.url,
      entities: { incidents: entity },
    });
    if (posted.status !== 201) throw new Error(`definition refused: ${posted.status} ${await posted.text()}`);
  }

  const runs: {
    label: 'A' | 'B';
    searchable: number;
    vectors: number | null;
    cpu: { searchable: number; vectors: number | null };
    load: string;
  }[] = [];
  // The bench's process runs the API, the worker (its sync and its embedding jobs) and the simulator: its CPU time
  // is what the platform spent, whatever share of the machine it got (the engine's and Postgres's are not in it).
  const cpuSeconds = (since: NodeJS.CpuUsage) => {
    const used = process.cpuUsage(since);
    return (used.user + used.system) / 1e6;
  };
  let created = 0;
  for (const label of ['A', 'B', 'B', 'A'] as const) {
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const response = await platform.call('POST', '/api/v1/integrations/connectors', {
      customer_name: 'bench',
      connector_type: KINDS[label],
      name: `bench-${++created}`,
      // The exported definition names the bearer credential `access_token` (docs/definitions.md).
      credentials: { access_token: sim.apiKey },
      replication_config: { start_date: START },
    });
    if (response.status !== 201) throw new Error(`create failed: ${response.status} ${await response.text()}`);
    const id = ((await response.json()) as { connector_id: string }).connector_id;
    await eventually(
      async () => {
        const status = (await entityStatuses(platform, id)).incidents;
        if (status?.error) throw new Error(`sync failed: ${status.error}`);
        return status?.status === 'ready' && !status.running && status.record_count === RECORDS ? status : undefined;
      },
      3_600_000,
      100,
    );
    const searchable = (performance.now() - started) / 1000;
    const cpu = { searchable: cpuSeconds(cpuBefore), vectors: null as number | null };
    let vectors: number | null = null;
    if (label === 'A') {
      // A defined kind's indices are named after its organization too: any of the platform's, by connector.
      const indices = `${platform.namespace}_*`;
      await eventually(
        async () => {
          const answer = await engine.count({
            index: indices,
            body: {
              query: { bool: { filter: [{ term: { _connector_id: id } }, { exists: { field: '_embedding' } }] } },
            },
          });
          return (answer.body as { count: number }).count === RECORDS ? true : undefined;
        },
        3_600_000,
        250,
      );
      vectors = (performance.now() - started) / 1000;
      cpu.vectors = cpuSeconds(cpuBefore);
    }
    const load = loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
    runs.push({ label, searchable, vectors, cpu, load });
    console.log(
      `${label} ${KINDS[label]}: searchable in ${searchable.toFixed(1)} s${vectors === null ? '' : `, vectors in ${vectors.toFixed(1)} s`} (load ${load})`,
    );
    await platform.call('DELETE', `/api/v1/integrations/connectors/${id}`);
  }
  const meanRate = (label: 'A' | 'B', time: (r: (typeof runs)[number]) => number) => {
    const of = runs.filter((r) => r.label === label);
    return of.reduce((sum, r) => sum + RECORDS / time(r), 0) / of.length;
  };
  const off = meanRate('B', (r) => r.searchable);
  const onSearchable = meanRate('A', (r) => r.searchable) / off;
  const onVectors = meanRate('A', (r) => r.vectors!) / off;
  console.log(`\n=== bench:embeddings-sync: ${RECORDS} incidents, two embedded fields, runs A B B A ===\n`);
  console.log(
    table(
      ['run', 'embeddings', 'searchable s', 'rec/s', 'CPU s', 'vectors in s', 'rec/s', 'CPU s', 'load'],
      runs.map((r) => [
        r.label,
        r.label === 'A' ? 'on' : 'off',
        r.searchable.toFixed(1),
        String(Math.round(RECORDS / r.searchable)),
        r.cpu.searchable.toFixed(1),
        r.vectors === null ? '-' : r.vectors.toFixed(1),
        r.vectors === null ? '-' : String(Math.round(RECORDS / r.vectors)),
        r.cpu.vectors === null ? '-' : r.cpu.vectors.toFixed(1),
        r.load,
      ]),
    ),
  );
  console.log(
    `\non/off until searchable = ${fixed(onSearchable)} (mean rates; target >= 0.6) ${verdict(onSearchable >= 0.6)}`,
  );
  console.log(`on (vectors in)/off (searchable) = ${fixed(onVectors)} (target >= 0.6) ${verdict(onVectors >= 0.6)}`);
  const meanCpu = (label: 'A' | 'B', of: (r: (typeof runs)[number]) => number) => {
    const chosen = runs.filter((r) => r.label === label);
    return chosen.reduce((sum, r) => sum + of(r), 0) / chosen.length;
  };
  const cpuOff = meanCpu('B', (r) => r.cpu.searchable);
  const cpuOn = meanCpu('A', (r) => r.cpu.vectors!);
  console.log(
    `CPU of the platform's process per 1,000 records: off ${fixed((cpuOff * 1000) / RECORDS)} s, on (vectors in) ${fixed((cpuOn * 1000) / RECORDS)} s; off/on = ${fixed(cpuOff / cpuOn)}`,
  );
} finally {
  await engine.close();
  await platform.close();
  await sim.close();
}
