/**
 * `pnpm bench:changes`: the change feed and webhooks to the customer under load, with the real worker in its own
 * process and the load (Orb upstream, edits announced by signed webhooks, the customer's receiver) in another
 * (changes-load.ts).
 *
 *   (a) an initial sync of BENCH_RECORDS customers with the feed on (every record a `record.created`): sync/raw
 *       (raw = the fastest bulk indexing of the same documents, raw-bulk.ts, as bench:sync) and the worker's peak
 *       RSS (with samples);
 *   (b) BENCH_RATE upstream edits per second for BENCH_SECONDS: copy write (the event's changed_at) → receiver,
 *       p50 / p95;
 *   (c) the receiver down (503) for BENCH_DOWN_SECONDS during the same rate, then back: every event delivered,
 *       distinct webhook-ids = events, no record's events out of order.
 *
 *   BENCH_RECORDS=1000000 BENCH_RATE=100 BENCH_SECONDS=60 BENCH_DOWN_SECONDS=600 (defaults; a smoke test in a few
 *   minutes: BENCH_RECORDS=5000 BENCH_SECONDS=20 BENCH_DOWN_SECONDS=30 BENCH_RETRY_SCHEDULE=5s,10s)
 *   BENCH_PARTS=abc  the parts to run ((b) and (c) need (a)'s connector, so (a) always runs)
 *   BENCH_ORB_RATE_LIMIT=1000  the Orb requests/s the worker is told (`learn`: none, the product learns one)
 *   BENCH_RETRY_SCHEDULE  the worker's WEBHOOK_RETRY_SCHEDULE (default 5s,30s,1m,2m,5m,5m,5m,5m: a receiver back
 *                         after 10 minutes is retried within 5; the product default waits up to 30 minutes there)
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { entityOf, findConnectorDefinition } from '@conduit/connectors';
import { WORKER_NODE_FLAGS } from '@conduit/worker';
import { entityStatuses } from '../harness/connector-status.ts';
import { engineClient } from '../harness/engine-client.ts';
import { eventually, startTestPlatform } from '../harness/platform.ts';
import { generateOrbData } from '../simulators/orb/data.ts';
import type { ChangesCommand, ChangesLoadEvent } from './changes-load.ts';
import { fastestRawBulk } from './raw-bulk.ts';
import { percentile, table, verdict } from './stats.ts';
import { workerUpstreamEnv } from './worker-env.ts';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const DOWN_SECONDS = Number(process.env.BENCH_DOWN_SECONDS ?? 600);
const PARTS = process.env.BENCH_PARTS ?? 'abc';
const RETRY_SCHEDULE = process.env.BENCH_RETRY_SCHEDULE ?? '5s,30s,1m,2m,5m,5m,5m,5m';
const START = '2023-01-01T00:00:00Z';
const WORKER_MAIN = fileURLToPath(new URL('../../apps/worker/src/main.ts', import.meta.url));
const entity = entityOf(findConnectorDefinition('Orb')!.catalog, 'customers')!;
const LOCAL = { WEBHOOK_ALLOW_HTTP: '1', WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_SCHEDULE: RETRY_SCHEDULE };

/** The worker's `webhook event processed` lines (where each event's time went), read per part. */
const processed: string[] = [];
const deliveries: Extract<ChangesLoadEvent, { type: 'delivered' }>[] = [];
let streamed: ((event: Extract<ChangesLoadEvent, { type: 'streamed' }>) => void) | undefined;
const load: ChildProcess = fork(fileURLToPath(new URL('./changes-load.ts', import.meta.url)), [], {
  env: { ...process.env, CHANGES_CUSTOMERS: String(RECORDS) },
});
const command = (c: ChangesCommand) => load.send(c);
const ready = new Promise<Extract<ChangesLoadEvent, { type: 'ready' }>>((resolve) =>
  load.on('message', (event: ChangesLoadEvent) => {
    if (event.type === 'ready') resolve(event);
    if (event.type === 'delivered') deliveries.push(event);
    if (event.type === 'streamed') streamed?.(event);
  }),
);
const stream = (perSecond: number, seconds: number) =>
  new Promise<Extract<ChangesLoadEvent, { type: 'streamed' }>>((resolve) => {
    streamed = resolve;
    command({ type: 'stream', perSecond, seconds });
  });

const { upstream, receiverUrl } = await ready;
const platform = await startTestPlatform({
  overrides: { baseUrls: { ORB: upstream.url }, tokenUrls: {} },
  worker: false,
  // Counting a million events reads a thousand feed pages a pass: the bench is not the caller the limit is for.
  env: { LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '100000000', ...LOCAL },
});
let worker: ChildProcess | undefined;
try {
  const env = {
    PATH: process.env.PATH,
    ...Object.fromEntries(Object.entries(platform.api.deps.env).map(([k, v]) => [k, String(v)])),
    CONNECTOR_BASE_URL_ORB: upstream.url,
    ...workerUpstreamEnv(),
    LOG_LEVEL: 'info',
    ...LOCAL,
  };
  worker = spawn(process.execPath, [...WORKER_NODE_FLAGS, WORKER_MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  createInterface({ input: worker.stdout! }).on('line', (line) => {
    if (line.includes('webhook event processed')) processed.push(line);
    else if (output.length < 1000) output.push(line);
  });
  await eventually(async () => (output.some((l) => l.includes('worker started')) ? true : undefined), 60_000, 100);
  let peakKb = 0;
  const rssSamples: string[] = [];
  // (a) the initial sync, the feed on.
  const started = performance.now();
  let lastSample = 0;
  const sampler = setInterval(() => {
    const kb = rssKb(worker!.pid!, 'VmRSS');
    peakKb = Math.max(peakKb, kb);
    if (performance.now() - lastSample < 2000) return;
    lastSample = performance.now();
    rssSamples.push(`${((lastSample - started) / 1000).toFixed(0)}:${(kb / 1024).toFixed(0)}`);
  }, 200);
  const created = await platform.call('POST', '/api/v1/integrations/connectors', {
    customer_name: 'bench',
    connector_type: 'Orb',
    name: 'changes',
    credentials: { api_key: upstream.apiKey },
    replication_config: { start_date: START },
  });
  const id = ((await created.json()) as { connector_id: string }).connector_id;
  const done = await eventually(
    async () => {
      const status = (await entityStatuses(platform, id)).customers;
      if (status?.error) throw new Error(`sync failed: ${status.error}`);
      return status?.status === 'ready' && !status.running ? status : undefined;
    },
    3_600_000,
    200,
  );
  const syncSeconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const peakMb = Math.max(peakKb, rssKb(worker.pid!, 'VmHWM')) / 1024;
  const created_events = await feedCount(id, '0');
  console.log(`(a) ${done.record_count} records synced in ${syncSeconds.toFixed(1)} s, ${created_events} events`);
  console.log(`(a) worker RSS samples (s: MB): ${rssSamples.join(' ')}`);
  const customers = generateOrbData({
    customers: RECORDS,
    subscriptionsPerCustomer: 0,
    plans: 1,
    from: START,
  }).customers;
  const engine = engineClient(platform.api.deps.env);
  const raw = await fastestRawBulk(engine, `${platform.namespace}_raw`, entity, id, customers);
  await engine.close();
  const ratio = RECORDS / syncSeconds / raw.best.rate;
  console.log(
    `(a) raw: ${RECORDS} records in ${raw.best.seconds.toFixed(1)} s (flushBytes ${raw.best.flushBytes}, ` +
      `concurrency ${raw.best.concurrency}; load ${raw.load})`,
  );
  // Each part's figures as soon as it finishes (a later part may take long or be stopped), and all at the end.
  const rows: string[][] = [];
  const figures = (measures: string[][]) => {
    console.log(`\n${table(['measure', 'value', 'target', ''], measures)}\n`);
    rows.push(...measures);
  };
  figures([
    ['(a) sync rec/s', String(Math.round(RECORDS / syncSeconds)), '', ''],
    [
      `(a) raw rec/s (flushBytes ${raw.best.flushBytes}, x${raw.best.concurrency})`,
      String(Math.round(raw.best.rate)),
      '',
      '',
    ],
    ['(a) sync/raw with the feed on', ratio.toFixed(2), '>= 0.85', verdict(ratio >= 0.85)],
    ['(a) worker peak RSS MB', peakMb.toFixed(0), '<= 300', verdict(peakMb <= 300)],
  ]);

  if (PARTS.includes('b') || PARTS.includes('c')) {
    const secret = 'bench-orb-webhook-secret-0123456789';
    await platform.call('PATCH', `/api/v1/integrations/connectors/${id}`, { webhook_secret: secret });
    command({ type: 'subscribe', url: `${platform.url}/api/v1/integrations/connectors/${id}/webhooks`, secret });
    const endpoint = await platform.call('POST', '/api/v1/webhook-endpoints', {
      url: receiverUrl,
      connector_ids: [id],
    });
    if (endpoint.status !== 201) throw new Error(`endpoint: ${endpoint.status} ${await endpoint.text()}`);
  }

  if (PARTS.includes('b')) {
    // (b) edits at RATE/s, delivered to a receiver that is up.
    const cursor = await latest(id);
    processed.length = 0;
    const b = await stream(RATE, SECONDS);
    console.log(`(b) ${streamLine(b)}`);
    const bExpected = await settleFeed(id, cursor);
    await eventually(async () => (okIds(bExpected.ids).size === bExpected.ids.size ? true : undefined), 600_000, 500);
    const bOk = deliveries.filter((d) => d.ok && bExpected.ids.has(d.webhookId));
    const latencies = bOk.map((d) => d.arrivedAt - Date.parse(d.changedAt)).sort((x, y) => x - y);
    console.log(
      `(b) ${b.changes} edits (${b.refused} refused), ${bExpected.ids.size} events delivered, ` +
        `${arrivalRate(bOk)} arrived/s; worker per event: ${workerTimes()}`,
    );
    figures([
      ['(b) edits sent /s (the generator)', (b.changes / b.sentSeconds).toFixed(0), String(RATE), ''],
      ['(b) copy write -> receiver p50 ms', String(percentile(latencies, 0.5)), '', ''],
      [
        '(b) copy write -> receiver p95 ms',
        String(percentile(latencies, 0.95)),
        '<= 2000',
        verdict(percentile(latencies, 0.95) <= 2000),
      ],
    ]);
  }

  if (PARTS.includes('c')) {
    // (c) the receiver down during RATE/s for DOWN_SECONDS, then back.
    const cursor = await latest(id);
    processed.length = 0;
    command({ type: 'receiver', up: false });
    const c = await stream(RATE, DOWN_SECONDS);
    command({ type: 'receiver', up: true });
    const back = performance.now();
    console.log(`(c) ${streamLine(c)}; worker per event: ${workerTimes()}`);
    const cExpected = await settleFeed(id, cursor);
    await eventually(
      async () => (okIds(cExpected.ids).size === cExpected.ids.size ? true : undefined),
      7_200_000,
      1000,
    );
    const catchUpSeconds = (performance.now() - back) / 1000;
    const cOk = deliveries.filter((d) => d.ok && cExpected.ids.has(d.webhookId));
    const distinct = new Set(cOk.map((d) => d.webhookId)).size;
    const violations = orderViolations(cOk);
    console.log(
      `(c) ${c.changes} edits while down, ${cExpected.ids.size} events, caught up ${catchUpSeconds.toFixed(0)} s after`,
    );
    figures([
      ['(c) edits sent /s (the generator)', (c.changes / c.sentSeconds).toFixed(0), String(RATE), ''],
      ['(c) caught up s after the receiver is back', catchUpSeconds.toFixed(0), '', ''],
      ['(c) events delivered', `${distinct} of ${cExpected.ids.size}`, 'all', verdict(distinct === cExpected.ids.size)],
      [
        '(c) distinct webhook-ids = events',
        `${distinct} = ${cExpected.ids.size}`,
        '',
        verdict(distinct === cExpected.ids.size),
      ],
      ['(c) per-record order violations', String(violations), '0', verdict(violations === 0)],
    ]);
  }

  console.log(`\n=== bench:changes (${RECORDS} records, ${RATE} changes/s; load ${loadAverage()}) ===\n`);
  console.log(table(['measure', 'value', 'target', ''], rows));
} finally {
  worker?.kill('SIGKILL');
  if (worker && worker.exitCode === null) await once(worker, 'exit');
  command({ type: 'stop' });
  await platform.close();
}

async function latest(id: string): Promise<string> {
  const page = (await (
    await platform.call('GET', `/api/v1/integrations/connectors/${id}/changes?after=latest`)
  ).json()) as {
    meta: { cursor: string };
  };
  return page.meta.cursor;
}

/** Every event id after `cursor`, once the webhook re-reads of the streamed edits have all been applied. */
async function settleFeed(id: string, cursor: string): Promise<{ ids: Set<string> }> {
  let last = -1;
  for (;;) {
    const ids = new Set<string>();
    let after = cursor;
    for (;;) {
      const response = await platform.call(
        'GET',
        `/api/v1/integrations/connectors/${id}/changes?after=${after}&limit=1000`,
      );
      if (response.status !== 200) throw new Error(`reading the feed: ${response.status} ${await response.text()}`);
      const page = (await response.json()) as {
        data: { id: string }[];
        meta: { cursor: string; has_more: boolean };
      };
      for (const event of page.data) ids.add(event.id);
      after = page.meta.cursor;
      if (!page.meta.has_more) break;
    }
    if (ids.size === last) return { ids };
    last = ids.size;
    await new Promise((resolve) => setTimeout(resolve, 3000));
  }
}

async function feedCount(id: string, after: string): Promise<number> {
  return (await settleFeed(id, after)).ids.size;
}

function okIds(expected: Set<string>): Set<string> {
  return new Set(deliveries.filter((d) => d.ok && expected.has(d.webhookId)).map((d) => d.webhookId));
}

/** Records whose events arrived (first successful delivery of each) out of their feed order. */
function orderViolations(delivered: readonly { webhookId: string; key: string }[]): number {
  const lastSeq = new Map<string, number>();
  const seen = new Set<string>();
  let violations = 0;
  for (const d of delivered) {
    if (seen.has(d.webhookId)) continue;
    seen.add(d.webhookId);
    const seq = Number(d.webhookId.slice(d.webhookId.lastIndexOf('.') + 1));
    if (seq < (lastSeq.get(d.key) ?? 0)) violations++;
    lastSeq.set(d.key, Math.max(seq, lastSeq.get(d.key) ?? 0));
  }
  return violations;
}

function streamLine(s: Extract<ChangesLoadEvent, { type: 'streamed' }>): string {
  return (
    `${s.changes} edits sent in ${s.sentSeconds.toFixed(1)} s (${(s.changes / s.sentSeconds).toFixed(0)}/s), ` +
    `all accepted after ${s.ackedSeconds.toFixed(1)} s, ${s.refused} refused ${JSON.stringify(s.refusals)}`
  );
}

/** Deliveries per second between the first and the last that arrived. */
function arrivalRate(arrived: readonly { arrivedAt: number }[]): string {
  if (arrived.length < 2) return '-';
  const times = arrived.map((d) => d.arrivedAt);
  return (arrived.length / Math.max(0.001, (Math.max(...times) - Math.min(...times)) / 1000)).toFixed(0);
}

/** Mean of the worker's per-event timings since the part began (read, write, whole job, waiting in the queue). */
function workerTimes(): string {
  const sums = { read_ms: 0, write_ms: 0, process_ms: 0, queued_ms: 0 };
  let n = 0;
  for (const line of processed) {
    try {
      const entry = JSON.parse(line) as Record<string, number>;
      for (const key of Object.keys(sums) as (keyof typeof sums)[]) sums[key] += entry[key] ?? 0;
      n++;
    } catch {
      // not a JSON line
    }
  }
  if (n === 0) return '-';
  return `${n} events, mean ${Object.entries(sums)
    .map(([k, v]) => `${k} ${(v / n).toFixed(0)}`)
    .join(', ')}`;
}

function loadAverage(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

function rssKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    return Number(
      new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0,
    );
  } catch {
    return 0;
  }
}
