/**
 * `pnpm bench:freshness`: seconds from an upstream change to "searchable", on the Orb and incident.io simulators,
 * (a) through the vendors' signed webhooks and (b) by polling with SYNC_INTERVAL=30s. Target (a): p95 <= 5 s under
 * a stream of 20 changes per second.
 *
 *   BENCH_RATE=20          changes per second, per kind (default 20)
 *   BENCH_WEBHOOK_S=30     seconds of stream per kind in the webhook phase (default 30)
 *   BENCH_POLL_S=75        seconds of stream in the polling phase, both kinds at once (default 75: 2.5 intervals)
 *   BENCH_WORKER_NODE_OPTIONS  NODE_OPTIONS of the worker process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`
 *   BENCH_WORKER_LOG       a file to write the worker's log of the webhook phase to (per-event timing counters)
 *
 * The load generator (freshness-load.ts) runs in its own process with the simulators: it creates records upstream
 * (Orb customers, incident.io incidents: changes both paths can see, as both kinds' incremental cursors follow
 * creation) and, in phase (a), delivers each vendor's signed webhook. The API runs here, the worker in its own
 * process (the real binary). "Searchable" is observed through the public search API, polled every 100 ms for
 * every pending change: latency = first poll that returns the new value - the instant of the upstream change.
 * Each phase has its own platform (own namespace, database and queues), removed at the end.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { findConnectorDefinition } from '@conduit/connectors';
import { waitForEntity } from '../harness/connector-status.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { WorkerProcess } from '../harness/worker-process.ts';
import type { LoadCommand, LoadEvent } from './freshness-load.ts';
import { fixed, percentile } from './stats.ts';

const RATE = Number(process.env.BENCH_RATE ?? 20);
const WEBHOOK_SECONDS = Number(process.env.BENCH_WEBHOOK_S ?? 30);
const POLL_SECONDS = Number(process.env.BENCH_POLL_S ?? 75);
const POLL_EVERY_MS = 100;
/** A change not searchable this long after its stream ended counts as lost. */
const GIVE_UP_MS = 90_000;
const KINDS = ['Orb', 'Incident-Io'] as const;
const SEARCHED: Record<string, { entity: string; key: string }> = {
  Orb: { entity: 'customers', key: 'id' },
  'Incident-Io': { entity: 'incidents', key: 'id' },
};

interface Pending {
  readonly kind: string;
  readonly key: string;
  readonly field: string;
  readonly value: unknown;
  readonly at: number;
}

interface PhaseResult {
  readonly phase: string;
  readonly kind: string;
  readonly latencies: number[];
  readonly lost: number;
  readonly changes: number;
}

const load: ChildProcess = fork(fileURLToPath(new URL('./freshness-load.ts', import.meta.url)), [], {
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const listeners = new Set<(event: LoadEvent) => void>();
load.on('message', (event: LoadEvent) => {
  for (const listener of listeners) listener(event);
});
const command = (c: LoadCommand) => load.send(c);
const nextEvent = <T extends LoadEvent['type']>(type: T, kind?: string) =>
  new Promise<Extract<LoadEvent, { type: T }>>((resolve) => {
    const listener = (event: LoadEvent) => {
      if (event.type === type && (kind === undefined || (event as { kind?: string }).kind === kind)) {
        listeners.delete(listener);
        resolve(event as Extract<LoadEvent, { type: T }>);
      }
    };
    listeners.add(listener);
  });

const { upstreams } = await nextEvent('ready');
const results: PhaseResult[] = [];
let workerView = '';
try {
  // (a) webhooks: SYNC_INTERVAL stays 1 h, so nothing but the webhooks can make a change searchable in time.
  const webhookPhase = await startPhase('1h', true);
  try {
    for (const kind of KINDS) {
      results.push(await measure(webhookPhase, 'webhooks', [kind], WEBHOOK_SECONDS));
    }
    if (process.env.BENCH_WORKER_LOG) writeFileSync(process.env.BENCH_WORKER_LOG, webhookPhase.workerOutput.join('\n'));
    // The worker's timing counters per event: where the time between "accepted" and "written" goes.
    const counter = (name: string) =>
      webhookPhase.workerOutput
        .map((line) => new RegExp(`"${name}":(\\d+)`).exec(line)?.[1])
        .filter((ms): ms is string => ms !== undefined)
        .map(Number)
        .sort((a, b) => a - b);
    const processed = counter('since_received_ms');
    const p50p95 = (name: string) => {
      const values = counter(name);
      return `${name.replace('_ms', '')} ${fixed(percentile(values, 0.5) / 1000, 2)}/${fixed(percentile(values, 0.95) / 1000, 2)}`;
    };
    workerView = `worker's own view (API accepted -> record written, before the index refresh): p50 ${fixed(percentile(processed, 0.5) / 1000)} s, p95 ${fixed(percentile(processed, 0.95) / 1000)} s over ${processed.length} events; p50/p95 s of ${['queued_ms', 'read_ms', 'write_ms'].map(p50p95).join(', ')}`;
  } finally {
    await webhookPhase.close();
  }
  // (b) polling every 30 s, no webhooks.
  const pollingPhase = await startPhase('30s', false);
  try {
    const both = await measureMany(pollingPhase, 'polling (SYNC_INTERVAL=30s)', [...KINDS], POLL_SECONDS);
    results.push(...both);
  } finally {
    await pollingPhase.close();
  }
} finally {
  command({ type: 'stop' });
}
report(results);

interface Phase {
  readonly platform: TestPlatform;
  readonly connectors: Record<string, string>;
  /** The worker's log lines, for its own view of each event (accepted by the API -> indexed). */
  readonly workerOutput: string[];
  close(): Promise<void>;
}

async function startPhase(syncInterval: string, webhooks: boolean): Promise<Phase> {
  const baseUrls = { ORB: upstreams.Orb!.baseUrl, INCIDENT_IO: upstreams['Incident-Io']!.baseUrl };
  const env = { SYNC_INTERVAL: syncInterval, LOG_LEVEL: 'warn' };
  const platform = await startTestPlatform({ overrides: { baseUrls, tokenUrls: {} }, worker: false, env });
  const worker = new WorkerProcess(platform.api.deps.env, {
    CONNECTOR_BASE_URL_ORB: baseUrls.ORB,
    CONNECTOR_BASE_URL_INCIDENT_IO: baseUrls.INCIDENT_IO,
    WORKER_METRICS_PORT: '0',
    LOG_LEVEL: 'info',
    ...(process.env.BENCH_WORKER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_WORKER_NODE_OPTIONS } : {}),
  });
  worker.start();
  await worker.waitFor('worker started');
  const connectors: Record<string, string> = {};
  for (const kind of KINDS) {
    const response = await platform.call('POST', '/api/v1/integrations/connectors', {
      customer_name: 'freshness',
      connector_type: kind,
      name: `${kind}-${syncInterval}`,
      credentials: upstreams[kind]!.credentials,
      replication_config: { start_date: '2023-01-01T00:00:00Z' },
    });
    if (response.status !== 201) throw new Error(`create ${kind}: ${response.status} ${await response.text()}`);
    const id = ((await response.json()) as { connector_id: string }).connector_id;
    connectors[kind] = id;
    // Every entity's first pass done, so initial syncs do not compete with the measured stream.
    const catalog = findConnectorDefinition(kind)!.catalog;
    for (const entity of Object.values(catalog.entities).filter((e) => e.searchable)) {
      await waitForEntity(platform, id, entity.name, (s) => s.status === 'ready' || s.status === 'failed', 180_000);
    }
    if (webhooks) {
      const secret =
        kind === 'Incident-Io' ? `whsec_${randomBytes(24).toString('base64')}` : randomBytes(20).toString('hex');
      const patched = await platform.call('PATCH', `/api/v1/integrations/connectors/${id}`, { webhook_secret: secret });
      if (patched.status !== 200) throw new Error(`webhook secret ${kind}: ${patched.status}`);
      command({
        type: 'subscribe',
        kind,
        url: `${platform.url}/api/v1/integrations/connectors/${id}/webhooks`,
        secret,
      });
    } else {
      command({ type: 'unsubscribe', kind });
    }
  }
  console.log(`phase ready: SYNC_INTERVAL=${syncInterval}, webhooks ${webhooks ? 'on' : 'off'}`);
  return {
    platform,
    connectors,
    workerOutput: worker.output,
    async close() {
      await worker.kill('SIGTERM');
      await platform.close();
    },
  };
}

function measure(phase: Phase, label: string, kinds: string[], seconds: number): Promise<PhaseResult> {
  return measureMany(phase, label, kinds, seconds).then((r) => r[0]!);
}

/** Streams RATE changes/s per kind for `seconds`, and times each change until search returns its new value. */
async function measureMany(phase: Phase, label: string, kinds: string[], seconds: number): Promise<PhaseResult[]> {
  console.log(`${label}: ${RATE} changes/s per kind for ${seconds} s (${kinds.join(', ')})`);
  const pending = new Map<string, Pending>();
  const latencies = new Map<string, number[]>(kinds.map((k) => [k, []]));
  const counts = new Map<string, number>(kinds.map((k) => [k, 0]));
  const onChange = (event: LoadEvent) => {
    if (event.type !== 'change' || !kinds.includes(event.kind)) return;
    counts.set(event.kind, (counts.get(event.kind) ?? 0) + 1);
    pending.set(`${event.kind}\0${event.key}`, { ...event });
  };
  listeners.add(onChange);
  const streamed = kinds.map((kind) => nextEvent('streamed', kind));
  for (const kind of kinds) command({ type: 'stream', kind, perSecond: RATE, seconds });
  let streamEnd: number | null = null;
  void Promise.all(streamed).then((done) => {
    streamEnd = Date.now();
    for (const d of done) {
      if (d.refusedDeliveries || d.failedDeliveries)
        console.log(`  ${d.kind}: ${d.refusedDeliveries} deliveries refused, ${d.failedDeliveries} failed`);
    }
  });
  while (streamEnd === null || (pending.size > 0 && Date.now() - streamEnd < GIVE_UP_MS)) {
    const tick = Date.now();
    for (const kind of kinds) {
      const mine = [...pending.values()].filter((p) => p.kind === kind);
      for (let i = 0; i < mine.length; i += 1000) {
        const batch = mine.slice(i, i + 1000);
        const found = await searchValues(phase, kind, batch);
        const now = Date.now();
        for (const change of batch) {
          if (found.get(change.key) === change.value) {
            latencies.get(kind)!.push(now - change.at);
            pending.delete(`${kind}\0${change.key}`);
          }
        }
      }
    }
    const wait = POLL_EVERY_MS - (Date.now() - tick);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  listeners.delete(onChange);
  return kinds.map((kind) => ({
    phase: label,
    kind,
    latencies: latencies.get(kind)!,
    lost: [...pending.values()].filter((p) => p.kind === kind).length,
    changes: counts.get(kind) ?? 0,
  }));
}

async function searchValues(phase: Phase, kind: string, batch: Pending[]): Promise<Map<string, unknown>> {
  const { entity, key } = SEARCHED[kind]!;
  const field = batch[0]!.field;
  const response = await phase.platform.call(
    'POST',
    `/api/v1/integrations/connectors/${phase.connectors[kind]}/execute`,
    {
      entity,
      action: 'search',
      params: { query: { filter: { in: { [key]: batch.map((p) => p.key) } } }, limit: 1000, fields: [key, field] },
    },
  );
  if (response.status !== 200) throw new Error(`search ${kind}: ${response.status} ${await response.text()}`);
  const body = (await response.json()) as { data: Record<string, unknown>[] };
  return new Map(body.data.map((r) => [String(r[key]), r[field]]));
}

function report(all: PhaseResult[]): void {
  const seconds = (ms: number) => fixed(ms / 1000, 2);
  console.log(
    `\nbench:freshness: upstream change -> searchable (seconds), ${RATE} changes/s per kind, search polled every ${POLL_EVERY_MS} ms`,
  );
  const rows = all.map((r) => {
    const sorted = [...r.latencies].sort((a, b) => a - b);
    return [
      r.phase,
      r.kind,
      String(r.changes),
      String(r.lost),
      seconds(percentile(sorted, 0.5)),
      seconds(percentile(sorted, 0.95)),
      seconds(percentile(sorted, 0.99)),
      seconds(sorted.at(-1) ?? Number.NaN),
    ];
  });
  const header = ['path', 'kind', 'changes', 'lost', 'p50 s', 'p95 s', 'p99 s', 'max s'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(line(header));
  for (const row of rows) console.log(line(row));
  if (workerView) console.log(workerView);
  for (const kind of KINDS) {
    const hook = all.find((r) => r.kind === kind && r.phase === 'webhooks');
    const poll = all.find((r) => r.kind === kind && r.phase !== 'webhooks');
    if (!hook || !poll) continue;
    const p95 = (r: PhaseResult) =>
      percentile(
        [...r.latencies].sort((a, b) => a - b),
        0.95,
      );
    const p50 = (r: PhaseResult) =>
      percentile(
        [...r.latencies].sort((a, b) => a - b),
        0.5,
      );
    console.log(
      `${kind}: webhooks p50 ${fixed(p50(poll) / p50(hook), 1)}x and p95 ${fixed(p95(poll) / p95(hook), 1)}x faster than polling; target webhooks p95 <= 5 s: ${p95(hook) <= 5000 && hook.lost === 0 ? 'met' : 'NOT met'}`,
    );
  }
}
