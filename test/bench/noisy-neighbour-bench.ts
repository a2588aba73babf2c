/**
 * `pnpm bench:noisy-neighbour`: can one organization hurt another's search? Organization A sends the costliest
 * searches the cost budget allows (docs/search-cost.md) from 16 and then 32 loops for 60 s each, while
 * organization B runs its cheap searches (a non-key `eq`, an anchored `like`, a `count_by`) one after another.
 * Before the floods, B runs alone for a baseline. Goal: B's p95 at most 250 ms with no failures during each flood,
 * and the engine idle (no search task of A's left) within 2 s of the flood's end.
 *
 * The API is the real binary in its own process; the load generator (noisy-neighbour-load.ts) too, one process
 * per phase. The data is loaded first by this process (which then only watches): N Orb invoices for A's
 * connector and for B's.
 *
 *   BENCH_DOCS=200000         invoices of A's connector
 *   BENCH_DOCS_B=50000        invoices of B's connector
 *   BENCH_SECONDS=60          seconds of each flood
 *   BENCH_BASELINE_SECONDS=10 seconds of B alone
 *   BENCH_CONCURRENCY=16,32   A's loops in each flood
 *   BENCH_NAMESPACE=noisy     index namespace (the indices are deleted at the end)
 *
 * Then the SQL phase, "SQL GROUP BY flood with abandoned requests" (sqlFloodPhase): A sends GROUP BY queries over its
 * copy from BENCH_SQL_CONCURRENCY loops for BENCH_SQL_SECONDS, abandoning each within BENCH_SQL_ABANDON_MS, while B
 * runs a simple search one at a time. Goal: B's p95 at most 250 ms, and the engine idle within 2 s of the flood's end.
 *
 *   BENCH_SQL_SECONDS=30      seconds of the SQL flood (0: no SQL phase)
 *   BENCH_SQL_CONCURRENCY=16  A's loops
 *   BENCH_SQL_ABANDON_MS=300  A abandons each request after a random time up to this
 *
 * Then the phase "slow-receiver delivery flood" (delivery-flood.ts): A's 10 webhook endpoints answer after 9.5 s
 * and replay A's feed from the start while B's changes are delivered to B's receiver and B searches. Goal: B's
 * delivery p95 at most 5 s and its search p95 at most 250 ms.
 *
 *   BENCH_DELIVERY_SECONDS=60 seconds of the delivery flood (0: skipped)
 *   BENCH_FLOOD_EVENTS=2000   events of A's feed that each of its endpoints replays
 *
 * Needs the local Postgres, Redis and OpenSearch. Exit code 0 unless something crashed; PASS/MISS lines are
 * informational.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { hashClientSecret } from '@conduit/config';
import { entityOf, findConnectorDefinition } from '@conduit/connectors';
import { ApiProcess } from '../harness/api-process.ts';
import { startTestPlatform } from '../harness/platform.ts';
import { deliveryFlood } from './delivery-flood.ts';
import { invoiceRecord } from './invoice-records.ts';
import type { LoadAnswer, LoadPlan } from './noisy-neighbour-load.ts';
import type { SqlLoadPlan } from './noisy-neighbour-sql-load.ts';
import { ms, percentile, table, verdict } from './stats.ts';

const DOCS = Number(process.env.BENCH_DOCS ?? 200_000);
const DOCS_B = Number(process.env.BENCH_DOCS_B ?? 50_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const BASELINE_SECONDS = Number(process.env.BENCH_BASELINE_SECONDS ?? 10);
const CONCURRENCIES = (process.env.BENCH_CONCURRENCY ?? '16,32').split(',').filter(Boolean).map(Number);
const NAMESPACE = process.env.BENCH_NAMESPACE ?? 'noisy';
const SQL_SECONDS = Number(process.env.BENCH_SQL_SECONDS ?? 30);
const SQL_CONCURRENCY = Number(process.env.BENCH_SQL_CONCURRENCY ?? 16);
const SQL_ABANDON_MS = Number(process.env.BENCH_SQL_ABANDON_MS ?? 300);
const CONNECTOR_A = 'a0000000-0000-4000-8000-00000000a015';
const CONNECTOR_B = 'b0000000-0000-4000-8000-00000000b015';
const P95_GOAL_MS = 250;
const IDLE_GOAL_MS = 2000;
const DELIVERY_SECONDS = Number(process.env.BENCH_DELIVERY_SECONDS ?? 60);
const FLOOD_EVENTS = Number(process.env.BENCH_FLOOD_EVENTS ?? 2000);

const entity = entityOf(findConnectorDefinition('Orb')!.catalog, 'invoices')!;
const platform = await startTestPlatform({ worker: false, env: { NAMESPACE } });
const { deps } = platform.api;
let api: ApiProcess | undefined;

try {
  const orgB = `noisy-b-${randomBytes(3).toString('hex')}`;
  const secretB = `secret-${randomBytes(12).toString('hex')}`;
  await deps.clients.upsertOrganization(orgB, orgB);
  await deps.clients.upsertClient({
    client_id: orgB,
    secret_hash: await hashClientSecret(secretB),
    name: orgB,
    allowed_redirect_urls: [],
  });
  await deps.clients.grant(orgB, orgB);
  await load(CONNECTOR_A, platform.organizationId, DOCS);
  await load(CONNECTOR_B, orgB, DOCS_B);

  // The per-client request limit would hide what the engine sharing does: out of the way.
  api = await ApiProcess.start(deps.env, { RATE_LIMIT_PER_MINUTE: '100000000' });
  const tokenOf = async (clientId: string, secret: string) => {
    const response = await fetch(`${api!.url}/api/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }),
    });
    return ((await response.json()) as { access_token: string }).access_token;
  };
  const a = { token: await tokenOf(platform.clientId, platform.clientSecret), connectorId: CONNECTOR_A };
  const b = { token: await tokenOf(orgB, secretB), connectorId: CONNECTOR_B };

  const rows: string[][] = [];
  const floods: string[][] = [];
  const verdicts: string[] = [];
  const baseline = await runPhase({ apiUrl: api.url, seconds: BASELINE_SECONDS, concurrency: 0, a, b });
  rows.push(...cheapRows('B alone', baseline));
  for (const concurrency of CONCURRENCIES) {
    const answers = await runPhase({ apiUrl: api.url, seconds: SECONDS, concurrency, a, b });
    const floodEnd = performance.now();
    const idleMs = await engineIdle(floodEnd);
    const label = `A x ${concurrency}`;
    const cheap = cheapRows(label, answers);
    rows.push(...cheap);
    const fromA = answers.filter((x) => x.who === 'A');
    const count = (test: (status: number) => boolean) => String(fromA.filter((x) => test(x.status)).length);
    const latencies = fromA
      .filter((x) => x.status === 200)
      .map((x) => x.ms)
      .sort((x, y) => x - y);
    floods.push([
      label,
      count((s) => s === 200),
      count((s) => s === 429),
      count((s) => s !== 200 && s !== 429),
      ms(percentile(latencies, 0.5)),
      ms(percentile(latencies, 0.95)),
      ms(idleMs),
    ]);
    const others = fromA.filter((x) => x.status !== 200 && x.status !== 429);
    if (others.length > 0) {
      const byKind = new Map<string, number>();
      for (const x of others) byKind.set(`${x.kind} ${x.status}`, (byKind.get(`${x.kind} ${x.status}`) ?? 0) + 1);
      console.log(`  A's other answers: ${[...byKind].map(([k, n]) => `${k}: ${n}`).join(', ')}`);
    }
    const fromB = answers.filter((x) => x.who === 'B');
    const p95 = percentile(
      fromB.map((x) => x.ms).sort((x, y) => x - y),
      0.95,
    );
    const failures = fromB.filter((x) => x.status !== 200).length;
    verdicts.push(
      `${verdict(p95 <= P95_GOAL_MS && failures === 0)} ${label}: B p95 ${ms(p95)} ms (goal <= ${P95_GOAL_MS}), ${failures} failures`,
      `${verdict(idleMs <= IDLE_GOAL_MS)} ${label}: engine idle ${ms(idleMs)} ms after the flood (goal <= ${IDLE_GOAL_MS})`,
    );
  }
  if (SQL_SECONDS > 0) verdicts.push(...(await sqlFloodPhase(api.url, a, b)));
  const deliveries: string[][] = [];
  if (DELIVERY_SECONDS > 0) {
    const flood = await deliveryFlood({
      deps,
      attacker: { organizationId: platform.organizationId, connectorId: CONNECTOR_A },
      victim: { organizationId: orgB, connectorId: CONNECTOR_B },
      seconds: DELIVERY_SECONDS,
      events: FLOOD_EVENTS,
      searches: (seconds) => runPhase({ apiUrl: api!.url, seconds, concurrency: 0, a, b }),
    });
    rows.push(...cheapRows('delivery flood', flood.searches));
    deliveries.push(flood.row);
    verdicts.push(...flood.verdicts);
  }
  console.log(`\nB's searches (${DOCS_B} invoices), while A (${DOCS} invoices) floods:`);
  console.log(table(['phase / B kind', 'n', 'p50 ms', 'p95 ms', 'max ms', 'failures'], rows));
  console.log(`\nA's flood:`);
  console.log(table(['phase', '200', '429', 'other', 'p50 ms', 'p95 ms', 'engine idle after, ms'], floods));
  if (deliveries.length > 0) {
    console.log(`\nB's deliveries while A's ${FLOOD_EVENTS}-event replays go to 10 endpoints answering after 9.5 s:`);
    console.log(table(['B changes', 'delivered', 'p50 ms', 'p95 ms', 'max ms', "A's calls answered"], deliveries));
  }
  console.log(`\n${verdicts.join('\n')}`);
} finally {
  await api?.stop();
  await platform.close();
}

/** One phase in its own load-generator process; its answers. */
async function runPhase(plan: LoadPlan, generator = './noisy-neighbour-load.ts'): Promise<LoadAnswer[]> {
  console.log(`phase: A x ${plan.concurrency} for ${plan.seconds} s ...`);
  const child = spawn(process.execPath, [fileURLToPath(new URL(generator, import.meta.url)), JSON.stringify(plan)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return JSON.parse(line) as LoadAnswer[];
}

/**
 * "SQL GROUP BY flood with abandoned requests": A's GROUP BY queries from SQL_CONCURRENCY loops, each abandoned
 * early (noisy-neighbour-sql-load.ts), B's simple search one at a time. Prints B's latencies and A's answers; its
 * verdicts: B's p95, and how long after the flood until the engine runs no search of A's.
 */
async function sqlFloodPhase(apiUrl: string, a: LoadPlan['a'], b: LoadPlan['b']): Promise<string[]> {
  const label = `SQL GROUP BY flood, A x ${SQL_CONCURRENCY} abandoning within ${SQL_ABANDON_MS} ms`;
  const plan: SqlLoadPlan = {
    apiUrl,
    seconds: SQL_SECONDS,
    concurrency: SQL_CONCURRENCY,
    a,
    b,
    abandonAfterMs: SQL_ABANDON_MS,
  };
  const answers = await runPhase(plan, './noisy-neighbour-sql-load.ts');
  const idleMs = await engineIdle(performance.now());
  const fromB = answers.filter((x) => x.who === 'B');
  const sorted = fromB.map((x) => x.ms).sort((x, y) => x - y);
  const failures = fromB.filter((x) => x.status !== 200).length;
  console.log(`\n${label}: B's simple search (${DOCS_B} invoices) while A (${DOCS} invoices) floods:`);
  console.log(
    table(
      ['n', 'p50 ms', 'p95 ms', 'max ms', 'failures'],
      [
        [
          String(sorted.length),
          ms(percentile(sorted, 0.5)),
          ms(percentile(sorted, 0.95)),
          ms(sorted.at(-1) ?? Number.NaN),
          String(failures),
        ],
      ],
    ),
  );
  const byKind = new Map<string, Map<number, number>>();
  for (const x of answers.filter((y) => y.who === 'A')) {
    const statuses = byKind.get(x.kind) ?? new Map<number, number>();
    statuses.set(x.status, (statuses.get(x.status) ?? 0) + 1);
    byKind.set(x.kind, statuses);
  }
  // -2: abandoned by A before the answer; -1: no answer.
  console.log(`A's answers by query (status: count; -2 abandoned):`);
  for (const [kind, statuses] of byKind) {
    console.log(`  ${kind}: ${[...statuses].map(([status, n]) => `${status}: ${n}`).join(', ')}`);
  }
  const p95 = percentile(sorted, 0.95);
  return [
    `${verdict(p95 <= P95_GOAL_MS && failures === 0)} ${label}: B p95 ${ms(p95)} ms (goal <= ${P95_GOAL_MS}), ${failures} failures`,
    `${verdict(idleMs <= IDLE_GOAL_MS)} ${label}: engine idle ${ms(idleMs)} ms after the flood (goal <= ${IDLE_GOAL_MS})`,
  ];
}

function cheapRows(label: string, answers: readonly LoadAnswer[]): string[][] {
  const kinds = [...new Set(answers.filter((x) => x.who === 'B').map((x) => x.kind))];
  return kinds.map((kind) => {
    const mine = answers.filter((x) => x.who === 'B' && x.kind === kind);
    const sorted = mine.map((x) => x.ms).sort((x, y) => x - y);
    return [
      `${label} / ${kind}`,
      String(mine.length),
      ms(percentile(sorted, 0.5)),
      ms(percentile(sorted, 0.95)),
      ms(sorted.at(-1) ?? Number.NaN),
      String(mine.filter((x) => x.status !== 200).length),
    ];
  });
}

/** Milliseconds from `since` until the engine runs no search task of A's (named by A's request ids). */
async function engineIdle(since: number): Promise<number> {
  for (;;) {
    const { body } = await deps.indexStore.client.tasks.list({ actions: '*search*', detailed: true });
    const nodes = (body as { nodes?: Record<string, { tasks: Record<string, { headers?: Record<string, string> }> }> })
      .nodes;
    const busy = Object.values(nodes ?? {}).some((node) =>
      Object.values(node.tasks).some((task) => task.headers?.['X-Opaque-Id']?.startsWith('noisy-a-')),
    );
    if (!busy) return performance.now() - since;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `docs` invoices for `connectorId` of `organizationId`. */
async function load(connectorId: string, organizationId: string, docs: number): Promise<void> {
  await deps.connectors.insert({
    id: connectorId,
    organization_id: organizationId,
    connector_type: 'Orb',
    customer_name: 'noisy',
    name: 'noisy',
    credentials_ciphertext: deps.cipher.encrypt({ api_key: 'k' }),
    config: '{}',
    replication_config: JSON.stringify({ start_date: '2023-01-01T00:00:00Z' }),
  });
  await deps.indexStore.ensureIndex('Orb', entity);
  console.log(`loading ${docs} invoices for ${connectorId} ...`);
  for (let from = 0; from < docs; from += 5000) {
    const records: Record<string, unknown>[] = [];
    for (let i = from; i < Math.min(docs, from + 5000); i++) records.push(invoiceRecord(i, docs));
    await deps.indexStore.writeBatch('Orb', entity, connectorId, 'bench-load', records, { readAt: Date.now() });
  }
  await deps.indexStore.refresh('Orb', 'invoices');
}
