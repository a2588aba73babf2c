/**
 * `pnpm bench:search`: our search (POST /execute on the real API binary, in its own process) against the same
 * request sent raw to OpenSearch (the compiled `_search` with the URL and bounds the API sends it with, or the
 * `_mget` a search by keys becomes), and
 * against a Postgres peer holding the same records the way Nango does (postgres-peer.ts), side by side per query
 * kind at several concurrencies, over N Orb-shaped invoices. Each kind is also asked in SQL (POST .../sql, the
 * same question: search-kinds.ts) and compared with its search (the SQL table). A fifth side, hop, sends the raw request through a
 * bare Node HTTP process (bare-hop.ts) that does nothing but pass it on: the floor under any Node API on this
 * machine, so ours - hop is our own work and hop - raw is the extra hop's.
 *
 * This process is the load generator and nothing else while measuring: the data is loaded first, the machine is
 * left to finish what the load left behind (settle.ts), then the API runs as a child process (so its CPU is its
 * own); ours and raw go through the same keep-alive HTTP client. Beside the latencies it prints each process's CPU
 * per request (the API's and the engine's from /proc, this generator's own; what each spends idle is subtracted),
 * which says where a side's time goes on a shared machine better than latency does, and the engine's time on the
 * bench index alone per request (`index`: its searches' query and fetch phases and its gets, from the index's own
 * statistics), which compares the sides at the engine without the rest of the machine. The index's request cache is
 * off, so neither side is answered from the other's cached aggregations.
 *
 *   BENCH_DOCS=1000000       documents (default 1,000,000); a rerun with the same N skips both loads
 *   BENCH_SECONDS=5          measured seconds per kind, side and concurrency (after BENCH_WARMUP_SECONDS=1)
 *   BENCH_ROUNDS=5           the measured seconds are taken in this many rounds, the sides interleaved
 *   BENCH_CONCURRENCY=1,8,32 concurrencies (requests in flight)
 *   BENCH_KINDS=eq id,...    only these query kinds
 *   BENCH_NAMESPACE=bench    index namespace (alias `<ns>_orb_invoices`); peer database `conduit_peer_<ns>`
 *   BENCH_PEER=0             skip the Postgres peer
 *   BENCH_SQL=0              skip the SQL side (POST .../sql), e.g. to profile the API on searches alone
 *   BENCH_PROFILE=dir        run the API with --cpu-prof, writing its profile into dir
 *   BENCH_A_ENV='K=V ...'    the API process (ours) runs with these variables set, e.g. OPENSEARCH_SEARCH_REQUESTS=16
 *   BENCH_B_FLAGS='--flag'   A/B of Node flags: a second API process, with these flags after the API's own, is a
 *                            fifth side (ours B) in the same interleaved rounds; its table follows the others
 *   BENCH_B_ENV='K=V ...'    A/B of settings: the second API process runs with these variables set (with or
 *                            without BENCH_B_FLAGS), e.g. OPENSEARCH_SEARCH_REQUESTS=1000 (every search alone)
 *                            or LOG_LEVEL=warn (no request lines; both APIs log at info otherwise)
 *   BENCH_B_CHECKOUT=dir     A/B of code: the second API process runs the API of another checkout (e.g.
 *                            `git worktree add --detach ../before HEAD~1` then `pnpm install --offline` in it),
 *                            with or without the two above. It gets a database of its own, conduit_bench_b_<ns>,
 *                            made fresh by that checkout's migrations, holding this run's organization, client and
 *                            connector (checkout-database.ts); both read the same index
 *   BENCH_A_CHECKOUT=dir     the first API process (ours) runs another checkout's API in the same way (database
 *                            conduit_bench_a_<ns>): with BENCH_B_CHECKOUT=. the mirror of an A/B of code
 *   BENCH_SETTLE=0           start at once, without waiting for a quiet machine (settle.ts)
 *   BENCH_CLEAN=1            delete the loaded index and the peer database at the end (kept otherwise)
 *
 * OPENSEARCH_URL may list several nodes of one cluster, comma-separated (as the platform takes it, e.g. for
 * `OPENSEARCH_NODES=3 ./dev start`): raw and the hop then spread requests over them in turn, as the API does, and
 * the engine's CPU is that of every node.
 *
 * Needs the local Postgres, Redis and OpenSearch (as `./dev test` does). Exit code 0 unless something crashed;
 * PASS/MISS lines are informational.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { entityOf, findConnectorDefinition } from '@conduit/connectors';
import { planSearch } from '@conduit/search-dsl';
import { lookupRequest, searchRequest } from '@conduit/search-store';
import type pg from 'pg';
import { ApiProcess, processCpuMs } from '../harness/api-process.ts';
import { checkoutDatabase } from '../harness/checkout-database.ts';
import { dropDatabase } from '../harness/databases.ts';
import { engineClient } from '../harness/engine-client.ts';
import { startTestPlatform } from '../harness/platform.ts';
import { KeepAliveClient } from './http-client.ts';
import { invoiceRecord } from './invoice-records.ts';
import { dropPeer, loadPeer, openPeer } from './postgres-peer.ts';
import { type QueryKind, queryKinds } from './search-kinds.ts';
import { settle } from './settle.ts';
import {
  fixed,
  geometricMean,
  ms,
  runConcurrent,
  type Samples,
  type Summary,
  summarize,
  table,
  verdict,
} from './stats.ts';

const DOCS = Number(process.env.BENCH_DOCS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
const CONCURRENCIES = (process.env.BENCH_CONCURRENCY ?? '1,8,32').split(',').map(Number);
const ONLY = process.env.BENCH_KINDS?.split(',').map((k) => k.trim());
const NAMESPACE = process.env.BENCH_NAMESPACE ?? 'bench';
const PEER = process.env.BENCH_PEER !== '0';
const SQL = process.env.BENCH_SQL !== '0';
const PROFILE = process.env.BENCH_PROFILE;
const CLEAN = process.env.BENCH_CLEAN === '1';
const B_FLAGS = process.env.BENCH_B_FLAGS?.split(' ').filter(Boolean);
/** `K=V K2=V2` as variables (BENCH_A_ENV, BENCH_B_ENV). */
const envPairs = (list: string | undefined): Record<string, string> | undefined =>
  list
    ? Object.fromEntries(
        list
          .split(' ')
          .filter(Boolean)
          .map((pair) => pair.split('=', 2)),
      )
    : undefined;
const A_ENV = envPairs(process.env.BENCH_A_ENV);
const B_ENV = envPairs(process.env.BENCH_B_ENV);
const A_CHECKOUT = process.env.BENCH_A_CHECKOUT;
const B_CHECKOUT = process.env.BENCH_B_CHECKOUT;
/** What another checkout's API needs in its own database to answer this run's searches, parents first. */
const CHECKOUT_TABLES = ['organizations', 'api_clients', 'client_organizations', 'connectors'];
const B_LABEL = [
  process.env.BENCH_B_FLAGS,
  process.env.BENCH_B_ENV,
  B_CHECKOUT ? `the API of ${B_CHECKOUT}` : undefined,
  A_CHECKOUT ? `(A: the API of ${A_CHECKOUT})` : undefined,
]
  .filter(Boolean)
  .join(' ');
const CONNECTOR_ID = 'b3c00000-0000-4000-8000-00000000be4c';
const LOAD_BATCH = 5000;
const LOAD_CONCURRENCY = 3;
const PEER_DATABASE = `conduit_peer_${NAMESPACE}`;
const IDLE_SAMPLE_MS = 3000;

const catalog = findConnectorDefinition('Orb')?.catalog;
const entity = catalog ? entityOf(catalog, 'invoices') : undefined;
if (!entity?.searchable) throw new Error('the Orb catalog has no searchable invoices');

const platform = await startTestPlatform({
  worker: false,
  env: { NAMESPACE, RATE_LIMIT_PER_MINUTE: '100000000' },
});
const { deps } = platform.api;
const engine = engineClient(deps.env);
const alias = deps.indexes.alias('Orb', 'invoices');
const maxConcurrency = Math.max(...CONCURRENCIES);
let api: ApiProcess | undefined;
let apiB: ApiProcess | undefined;
let hopProcess: ReturnType<typeof spawn> | undefined;
let peer: pg.Pool | undefined;
/** The databases made for another checkout's API (BENCH_A_CHECKOUT, BENCH_B_CHECKOUT), dropped at the end. */
const checkoutDatabases: string[] = [];
let idleCpu = { api: 0, apiB: 0, hop: 0, engine: 0 };
/** The OpenSearch nodes' process ids when they run on this machine (engineCpuMs), null when they do not. */
let enginePids: number[] | null | undefined;

try {
  await deps.connectors.insert({
    id: CONNECTOR_ID,
    organization_id: platform.organizationId,
    connector_type: 'Orb',
    customer_name: 'bench',
    name: 'bench',
    credentials_ciphertext: deps.cipher.encrypt({ api_key: 'bench-key' }),
    config: JSON.stringify({}),
    replication_config: JSON.stringify({ start_date: '2023-01-01T00:00:00Z' }),
  });
  await loadIndex();
  if (PEER) {
    peer = await openPeer(deps.env.DATABASE_URL, PEER_DATABASE, maxConcurrency);
    await loadPeer(peer, CONNECTOR_ID, DOCS, (i) => invoiceRecord(i, DOCS));
  }
  // BENCH_SETTLE=0: on a machine others keep busy it would only wait its 3 minutes out.
  const quiet =
    process.env.BENCH_SETTLE === '0' ? { settled: false, waitedMs: 0, busyCores: Number.NaN } : await settle();
  console.log(
    `${quiet.settled ? 'machine quiet' : 'machine still busy'} after ${(quiet.waitedMs / 1000).toFixed(0)} s (${fixed(quiet.busyCores)} cores busy)`,
  );
  // The in-process platform above only prepared the data; from here on it is idle.
  // A and B differ in their extra Node flags, variables and checkout only. Another checkout's API runs on a
  // database of its own (its schema may differ from this one's), with the rows it needs copied there.
  const startApi = async (
    side: 'a' | 'b',
    nodeFlags: readonly string[],
    env: Record<string, string> = {},
    checkout?: string,
  ) => {
    const database = checkout
      ? await checkoutDatabase(checkout, deps.env.DATABASE_URL, `conduit_bench_${side}_${NAMESPACE}`, CHECKOUT_TABLES)
      : undefined;
    if (database) checkoutDatabases.push(database);
    return ApiProcess.start(
      deps.env,
      { RATE_LIMIT_PER_MINUTE: '100000000', ...env, ...(database ? { DATABASE_URL: database } : {}) },
      { logLevel: env.LOG_LEVEL ?? 'info', nodeFlags, checkout },
    );
  };
  api = await startApi('a', PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE}`] : [], A_ENV, A_CHECKOUT);
  if (B_FLAGS || B_ENV || B_CHECKOUT) apiB = await startApi('b', B_FLAGS ?? [], B_ENV, B_CHECKOUT);
  hopProcess = spawn(
    process.execPath,
    [fileURLToPath(new URL('./bare-hop.ts', import.meta.url)), deps.env.OPENSEARCH_URL, String(maxConcurrency)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [hopLine] = (await once(createInterface({ input: hopProcess.stdout! }), 'line')) as [string];
  const token = await tokenFrom(api.url);
  // Each API its own token: another checkout may sign or check tokens its own way.
  const tokenB = apiB ? await tokenFrom(apiB.url) : token;
  const ours = new KeepAliveClient(api.url, maxConcurrency);
  const oursB = apiB ? new KeepAliveClient(apiB.url, maxConcurrency) : undefined;
  const raw = new KeepAliveClient(deps.env.OPENSEARCH_URL, maxConcurrency);
  const hop = new KeepAliveClient((JSON.parse(hopLine) as { url: string }).url, maxConcurrency);
  const kinds = queryKinds(DOCS, CONNECTOR_ID).filter((k) => !ONLY || ONLY.includes(k.name));
  const sides = kinds.map((kind) => prepare(kind, token));
  const sidesB = kinds.map((kind) => prepare(kind, tokenB));
  for (const side of sides) await side.check(ours, raw, hop);
  if (oursB) for (const [i, side] of sidesB.entries()) await side.sameAs(oursB, sides[i]!, ours);
  idleCpu = await idleCpuRates();
  console.log(
    `idle CPU: api ${ms(idleCpu.api)} ms/s${apiB ? `, api B ${ms(idleCpu.apiB)} ms/s` : ''}, hop ${ms(idleCpu.hop)} ms/s, engine ${ms(idleCpu.engine)} ms/s (subtracted below)`,
  );

  const byConcurrency: { concurrency: number; rows: KindResult[] }[] = [];
  for (const concurrency of CONCURRENCIES) {
    console.log(`\n--- concurrency ${concurrency} (load ${loadAverage()}) ---`);
    const rows: KindResult[] = [];
    for (const [k, side] of sides.entries()) {
      const sideB = sidesB[k]!;
      const measured = await measureInterleaved(side.name, concurrency, [
        { label: 'ours', task: (i) => side.ours(ours, i) },
        { label: 'raw', task: (i) => side.raw(raw, i) },
        { label: 'hop', task: (i) => side.raw(hop, i) },
        ...(SQL ? [{ label: 'sql', task: (i: number) => side.sql(ours, i) }] : []),
        ...(oursB ? [{ label: 'ours B', task: (i: number) => sideB.ours(oursB, i) }] : []),
        ...(peer ? [{ label: 'peer', task: (i: number) => side.peer(peer!, i) }] : []),
      ]);
      const result: KindResult = {
        name: side.name,
        ours: measured.get('ours')!,
        raw: measured.get('raw')!,
        hop: measured.get('hop')!,
        sql: measured.get('sql'),
        oursB: measured.get('ours B'),
        peer: measured.get('peer'),
      };
      rows.push(result);
      const o = summarize(result.ours);
      const r = summarize(result.raw);
      const h = summarize(result.hop);
      console.log(
        `  ${side.name.padEnd(13)} ours p50 ${ms(o.p50)} ms ${Math.round(o.throughput)} req/s | raw p50 ${ms(r.p50)} ms ${Math.round(r.throughput)} req/s | hop p50 ${ms(h.p50)} ms`,
      );
    }
    byConcurrency.push({ concurrency, rows });
  }
  ours.close();
  oursB?.close();
  raw.close();
  hop.close();
  report(byConcurrency, kinds.length);
} finally {
  await api?.stop();
  await apiB?.stop();
  hopProcess?.kill();
  await peer?.end();
  for (const database of checkoutDatabases) await dropDatabase(database);
  if (CLEAN) {
    const targets = await engine.indices.getAlias({ name: alias }, { ignore: [404] });
    for (const index of Object.keys((targets.body ?? {}) as Record<string, unknown>)) {
      if (index === 'error' || index === 'status') continue;
      await engine.indices.delete({ index }, { ignore: [404] });
    }
    if (PEER) await dropPeer(deps.env.DATABASE_URL, PEER_DATABASE);
    console.log(`BENCH_CLEAN=1: deleted the index behind ${alias} and the peer database ${PEER_DATABASE}`);
  }
  await engine.close();
  await platform.close();
}

// ---------------------------------------------------------------------------------------------------------------

interface KindResult {
  name: string;
  ours: Measured;
  raw: Measured;
  hop: Measured;
  /** The same question through POST .../sql (undefined with BENCH_SQL=0). */
  sql: Measured | undefined;
  oursB: Measured | undefined;
  peer: Measured | undefined;
}

interface PreparedKind {
  readonly name: string;
  ours(client: KeepAliveClient, i: number): Promise<void>;
  raw(client: KeepAliveClient, i: number): Promise<void>;
  sql(client: KeepAliveClient, i: number): Promise<void>;
  peer(pool: pg.Pool, i: number): Promise<void>;
  /** Our first page equals the raw one and the hop's (same ids in the same order) for the first variant. */
  check(ours: KeepAliveClient, raw: KeepAliveClient, hop: KeepAliveClient): Promise<void>;
  /** This API's first page (e.g. ours B, with this side's token) equals `other`'s through `otherClient`. */
  sameAs(client: KeepAliveClient, other: PreparedKind, otherClient: KeepAliveClient): Promise<void>;
  /** The ids of the first variant's first page. */
  firstPage(client: KeepAliveClient): Promise<string[]>;
}

function prepare(kind: QueryKind, token: string): PreparedKind {
  const executePath = `/api/v1/integrations/connectors/${CONNECTOR_ID}/execute`;
  const headers = { authorization: `Bearer ${token}` };
  const oursBodies = kind.variants.map((v) =>
    JSON.stringify({ entity: 'invoices', action: 'search', params: v.params }),
  );
  // Raw is what our API sends the engine: the compiled `_search` with the engine's bounds and the URL the API
  // sends it with (searchRequest), or for a search by keys the `_mget` it becomes. The bounds cost the engine a
  // little (docs/search-cost.md): that is the same on both sides, so ours - raw is the API's own.
  const rawRequests = kind.variants.map((v) => {
    const plan = planSearch(v.params, {
      searchable: entity!.searchable ?? {},
      recordKey: entity!.recordKey,
      connectorId: CONNECTOR_ID,
      entity: 'Orb/invoices',
      cursorKey: 'bench-raw-cursor-key',
    });
    return plan.lookup
      ? lookupRequest(alias, CONNECTOR_ID, plan.lookup.ids, plan.body._source.includes)
      : searchRequest(alias, CONNECTOR_ID, plan.body);
  });
  const n = kind.variants.length;
  const sqlPath = `/api/v1/integrations/connectors/${CONNECTOR_ID}/sql`;
  // A page of records asks for the same page size; aggregations are one page of groups.
  const sqlBodies = kind.variants.map((v) => JSON.stringify({ query: v.sql, limit: v.params.limit || 1000 }));
  const sqlCall = async (client: KeepAliveClient, i: number) => {
    const response = await client.post(sqlPath, sqlBodies[i % n]!, headers);
    if (response.status !== 200) throw new Error(`sql answered ${response.status}: ${response.text.slice(0, 300)}`);
    return JSON.parse(response.text) as { data: { id?: string }[] };
  };
  const oursCall = async (client: KeepAliveClient, i: number) => {
    const response = await client.post(executePath, oursBodies[i % n]!, headers);
    if (response.status !== 200) throw new Error(`execute answered ${response.status}: ${response.text.slice(0, 300)}`);
    return JSON.parse(response.text) as { data: { id: string }[] };
  };
  const firstPage = async (client: KeepAliveClient) => (await oursCall(client, 0)).data.map((r) => r.id);
  /** The keys of the records raw found, in the engine's order. */
  const rawCall = async (client: KeepAliveClient, i: number) => {
    const { path, body } = rawRequests[i % n]!;
    const response = await client.post(path, body);
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${response.text.slice(0, 300)}`);
    const answer = JSON.parse(response.text) as {
      hits?: { hits: { _source: { _key: string } }[] };
      docs?: { _source: { _key: string } }[];
    };
    return (answer.hits?.hits ?? answer.docs ?? []).map((hit) => hit._source._key);
  };
  return {
    name: kind.name,
    ours: async (client, i) => void (await oursCall(client, i)),
    raw: async (client, i) => void (await rawCall(client, i)),
    sql: async (client, i) => void (await sqlCall(client, i)),
    peer: async (pool, i) => {
      const query = kind.variants[i % n]!.peer;
      await pool.query(query.text, query.values as unknown[]);
    },
    firstPage,
    async sameAs(client, other, otherClient) {
      const ids = await firstPage(client);
      const otherIds = await other.firstPage(otherClient);
      if (JSON.stringify(ids) !== JSON.stringify(otherIds))
        throw new Error(`${kind.name}: ours B ${ids.join(',')} differs from ours ${otherIds.join(',')}`);
    },
    async check(ours, raw, hop) {
      const limit = kind.variants[0]!.params.limit;
      const ourIds = await firstPage(ours);
      for (const [side, client] of [
        ['raw', raw],
        ['hop', hop],
      ] as const) {
        const ids = (await rawCall(client, 0)).slice(0, limit);
        if (JSON.stringify(ourIds) !== JSON.stringify(ids))
          throw new Error(`${kind.name}: ours ${ourIds.join(',')} differs from ${side} ${ids.join(',')}`);
      }
      // SQL answers the same records (pages of records) or some groups (aggregations).
      if (!SQL) return;
      const sqlRows = (await sqlCall(ours, 0)).data;
      if (limit > 0 && JSON.stringify(sqlRows.map((r) => r.id)) !== JSON.stringify(ourIds))
        throw new Error(
          `${kind.name}: sql ${sqlRows.map((r) => r.id).join(',')} differs from ours ${ourIds.join(',')}`,
        );
    },
  };
}

/** Latencies plus the CPU each process spent per completed request while they were taken. */
type Measured = Samples & { readonly cpuPerRequest: CpuPerRequest };

interface CpuPerRequest {
  readonly api: number;
  readonly apiB: number;
  readonly hop: number;
  readonly engine: number;
  /** The engine's time on the bench index alone (engineIndexMs): no other index's work in it. */
  readonly index: number;
  readonly generator: number;
}

/**
 * Measures the sides of one query kind in ROUNDS rounds, each side for SECONDS / ROUNDS per round, in an order
 * that reverses every round (ours raw hop peer, then peer hop raw ours, ...). Run one after the other instead,
 * the first side (ours) paid for whatever the machine was still settling (the engine's merges after a load, the
 * API's JIT): right after a 200k load, eq id at concurrency 1 measured ours 6.38 ms that way, 2.88 ms interleaved
 * in a later run. Samples and CPU add up over the rounds.
 */
async function measureInterleaved(
  kind: string,
  concurrency: number,
  sides: readonly { label: string; task: (i: number) => Promise<void> }[],
): Promise<Map<string, Measured>> {
  for (const side of sides) await runConcurrent(side.task, { concurrency, durationMs: WARMUP_SECONDS * 1000 });
  const totals = sides.map(() => ({
    latencies: [] as number[],
    errors: 0,
    elapsedMs: 0,
    cpu: { api: 0, apiB: 0, hop: 0, engine: 0, index: 0, generator: 0 },
  }));
  for (let round = 0; round < ROUNDS; round++) {
    const order = sides.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) {
      const before = await cpuNow();
      const samples = await runConcurrent(sides[i]!.task, { concurrency, durationMs: (SECONDS * 1000) / ROUNDS });
      const after = await cpuNow();
      const total = totals[i]!;
      // concat, not push(...): a long phase holds more samples than a call takes arguments.
      total.latencies = total.latencies.concat(samples.latencies);
      total.errors += samples.errors;
      total.elapsedMs += samples.elapsedMs;
      for (const name of ['api', 'apiB', 'hop', 'engine', 'index', 'generator'] as const)
        total.cpu[name] += after[name] - before[name];
      if (samples.errors > 0)
        console.log(`  ${kind} ${sides[i]!.label}: ${samples.errors} errors, first: ${String(samples.firstError)}`);
    }
  }
  const measured = totals.map(({ cpu, ...samples }): Measured => {
    // What each process spends while idle (timers, the engine's housekeeping) is not the requests' cost.
    const idle = (rate: number) => (rate * samples.elapsedMs) / 1000;
    const per = (spent: number, idleRate = 0) =>
      Math.max(0, spent - idle(idleRate)) / Math.max(1, samples.latencies.length);
    return {
      ...samples,
      cpuPerRequest: {
        api: per(cpu.api, idleCpu.api),
        apiB: per(cpu.apiB, idleCpu.apiB),
        hop: per(cpu.hop, idleCpu.hop),
        engine: per(cpu.engine, idleCpu.engine),
        index: per(cpu.index),
        generator: per(cpu.generator),
      },
    };
  });
  return new Map(sides.map((side, i) => [side.label, measured[i]!]));
}

/** CPU ms per second the API process, the hop and the engine use with no requests in flight. */
async function idleCpuRates(): Promise<{ api: number; apiB: number; hop: number; engine: number }> {
  const before = await cpuNow();
  await new Promise((resolve) => setTimeout(resolve, IDLE_SAMPLE_MS));
  const after = await cpuNow();
  const rate = (from: number, to: number) => ((to - from) * 1000) / IDLE_SAMPLE_MS;
  return {
    api: rate(before.api, after.api),
    apiB: rate(before.apiB, after.apiB),
    hop: rate(before.hop, after.hop),
    engine: rate(before.engine, after.engine),
  };
}

/** CPU ms used so far by the API process (and its B twin), the hop, the OpenSearch node and this load generator. */
async function cpuNow(): Promise<Omit<CpuPerRequest, 'index'> & { index: number }> {
  const usage = process.cpuUsage();
  return {
    api: api?.cpuMs() ?? 0,
    apiB: apiB?.cpuMs() ?? 0,
    hop: hopProcess?.pid ? processCpuMs(hopProcess.pid) : 0,
    engine: await engineCpuMs(),
    index: await engineIndexMs(),
    generator: (usage.user + usage.system) / 1000,
  };
}

/**
 * The engine's time so far on the bench index alone, in ms: its searches' query and fetch phases and its gets (a
 * multi-get is one per document), from the index's own statistics. Where the engine's CPU from /proc takes a share
 * of whatever else the engine did meanwhile (other indices, merges), this counts only the work the sides asked for,
 * so it is what compares ours with raw at the engine.
 * https://opensearch.org/docs/latest/api-reference/index-apis/stats/
 */
async function engineIndexMs(): Promise<number> {
  const stats = await engine.indices.stats({ index: alias, metric: ['search', 'get'] });
  const total = (stats.body as { _all: { total: IndexTimes } })._all.total;
  return total.search.query_time_in_millis + total.search.fetch_time_in_millis + total.get.time_in_millis;
}

interface IndexTimes {
  readonly search: { readonly query_time_in_millis: number; readonly fetch_time_in_millis: number };
  readonly get: { readonly time_in_millis: number };
}

/**
 * The OpenSearch nodes' CPU ms (every node of the cluster, as OPENSEARCH_URL may list several): from /proc when
 * they run on this machine (exact to the clock tick), else from their node stats, which a node refreshes only once
 * a second (`monitor.process.refresh_interval`): over a 5 s window that alone moved a cheap query's engine CPU per
 * request by a third between runs.
 */
async function engineCpuMs(): Promise<number> {
  if (enginePids === undefined) {
    const info = await engine.nodes.info({ node_id: '_all', metric: ['process'] });
    const nodes = Object.values((info.body as { nodes: Record<string, { process?: { id?: number } }> }).nodes);
    const pids = nodes.map((node) => node.process?.id);
    enginePids = pids.every((pid) => pid !== undefined && existsSync(`/proc/${pid}/stat`)) ? (pids as number[]) : null;
  }
  if (enginePids !== null) return enginePids.reduce((sum, pid) => sum + processCpuMs(pid), 0);
  const stats = await engine.nodes.stats({ node_id: '_all', metric: ['process'] });
  const nodes = Object.values(
    (stats.body as { nodes: Record<string, { process: { cpu: { total_in_millis: number } } }> }).nodes,
  );
  return nodes.reduce((sum, node) => sum + node.process.cpu.total_in_millis, 0);
}

async function tokenFrom(url: string): Promise<string> {
  const response = await fetch(`${url}/api/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      client_id: platform.clientId,
      client_secret: platform.clientSecret,
    }),
  });
  if (!response.ok) throw new Error(`token request failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

async function loadIndex(): Promise<void> {
  const client = engine;
  const index = await deps.indexes.ensureIndex('Orb', entity!);
  // The shard request cache answers a repeated size-0 search (aggregations) from memory. The sides run one after
  // the other over the same variants, so whichever ran second found the first one's answers cached (raw looked
  // 4-5x faster on aggregations for that reason alone): every side computes every answer here.
  await client.indices.putSettings({ index: alias, body: { 'index.requests.cache.enable': false } });
  await deps.indexes.refresh('Orb', 'invoices');
  const present = await deps.copy.count('Orb', 'invoices', CONNECTOR_ID);
  if (present === DOCS) {
    console.log(`index ${alias} already holds ${DOCS} documents for ${CONNECTOR_ID}: load skipped`);
    return;
  }
  if (present > DOCS) {
    // More than asked for: the extra documents would skew every query.
    throw new Error(`${alias} holds ${present} documents (> ${DOCS}): rerun with BENCH_CLEAN=1 or another namespace`);
  }
  console.log(`loading ${DOCS} invoices into ${index} (found ${present}) ...`);
  const settings = (values: Record<string, unknown>) => client.indices.putSettings({ index: alias, body: values });
  await settings({ 'index.refresh_interval': '-1', 'index.translog.durability': 'async' });
  const started = performance.now();
  let next = 0;
  let written = 0;
  const worker = async () => {
    for (;;) {
      const from = next;
      if (from >= DOCS) return;
      next += LOAD_BATCH;
      const records: Record<string, unknown>[] = [];
      for (let i = from; i < Math.min(from + LOAD_BATCH, DOCS); i++) records.push(invoiceRecord(i, DOCS));
      // Awaited first: `written += await ...` would read `written` before the await and lose the other workers' counts.
      const { indexed } = await deps.copy.writeRecords('Orb', entity!, CONNECTOR_ID, 'bench-load', records, {
        readAt: Date.now(),
      });
      written += indexed;
    }
  };
  try {
    await Promise.all(Array.from({ length: LOAD_CONCURRENCY }, worker));
  } finally {
    await settings({ 'index.refresh_interval': '1s', 'index.translog.durability': 'request' });
  }
  await client.indices.refresh({ index: alias });
  // One segment: every run then measures the same index shape, however the load happened to merge.
  // Merging a million documents outlasts the client's 30 s default on a loaded machine (a run died there).
  await client.indices.forcemerge({ index: alias, max_num_segments: 1 }, { requestTimeout: 1_800_000 });
  const seconds = (performance.now() - started) / 1000;
  const count = await deps.copy.count('Orb', 'invoices', CONNECTOR_ID);
  console.log(`loaded ${written} documents in ${seconds.toFixed(1)} s (${Math.round(written / seconds)} docs/s)`);
  if (count !== DOCS) throw new Error(`expected ${DOCS} documents after the load, found ${count}`);
}

function loadAverage(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

function report(byConcurrency: { concurrency: number; rows: KindResult[] }[], kindCount: number): void {
  console.log(
    `\n=== search: ${DOCS} Orb invoices, ${kindCount} query kinds, ${SECONDS} s per kind, side and concurrency ===`,
  );
  console.log('latencies in ms; ours = POST /execute through the API process, raw = the same request to OpenSearch');
  console.log('(the compiled _search, or the _mget a search by keys becomes), hop = the raw request through a bare');
  console.log('Node HTTP process (the floor under any Node API here),');
  console.log('pg = the Postgres peer (jsonb + GIN/pg_trgm/full-text); d50 = ours p50 - raw p50;');
  console.log('own50 = ours p50 - hop p50 (our own work, above what any extra hop costs)\n');
  const misses: string[] = [];
  for (const { concurrency, rows } of byConcurrency) {
    const line = (r: KindResult) => {
      const o = summarize(r.ours);
      const w = summarize(r.raw);
      const h = summarize(r.hop);
      const p: Summary | undefined = r.peer ? summarize(r.peer) : undefined;
      if (concurrency === 1 && o.p50 - h.p50 > 0.5) misses.push(`c1 ${r.name}: ours - hop p50 ${ms(o.p50 - h.p50)} ms`);
      if (concurrency === maxConcurrency && o.p50 / h.p50 > 1.15)
        misses.push(`c${concurrency} ${r.name}: ours/hop p50 ${fixed(o.p50 / h.p50)}`);
      if (concurrency === maxConcurrency && o.throughput < 0.85 * h.throughput)
        misses.push(`c${concurrency} ${r.name}: ours/hop req/s ${fixed(o.throughput / h.throughput)}`);
      return [
        r.name,
        ms(o.p50),
        ms(o.p95),
        ms(o.p99),
        String(Math.round(o.throughput)),
        ms(w.p50),
        ms(w.p95),
        ms(w.p99),
        String(Math.round(w.throughput)),
        ms(h.p50),
        String(Math.round(h.throughput)),
        p ? ms(p.p50) : '-',
        p ? ms(p.p99) : '-',
        p ? String(Math.round(p.throughput)) : '-',
        ms(o.p50 - w.p50),
        ms(o.p50 - h.p50),
        fixed(o.p50 / w.p50),
        fixed(o.throughput / w.throughput),
        fixed(o.p50 / h.p50),
        fixed(o.throughput / h.throughput),
        p ? fixed(p.p50 / w.p50) : '-',
        String(o.errors + w.errors + (p?.errors ?? 0)),
      ];
    };
    console.log(`concurrency ${concurrency}`);
    console.log(
      table(
        [
          'query kind',
          'ours p50',
          'p95',
          'p99',
          'req/s',
          'raw p50',
          'p95',
          'p99',
          'req/s',
          'hop p50',
          'req/s',
          'pg p50',
          'p99',
          'req/s',
          'd50',
          'own50',
          'ours/raw p50',
          'ours/raw req/s',
          'ours/hop p50',
          'ours/hop req/s',
          'pg/raw p50',
          'errors',
        ],
        rows.map(line),
      ),
    );
    console.log(`CPU per request at concurrency ${concurrency} (ms; where a side's time goes on this machine)`);
    console.log(
      table(
        [
          'query kind',
          'ours: api',
          'engine',
          'index',
          'generator',
          'hop: node',
          'engine',
          'index',
          'raw: engine',
          'index',
          'generator',
        ],
        rows.map((r) => [
          r.name,
          ms(r.ours.cpuPerRequest.api),
          ms(r.ours.cpuPerRequest.engine),
          ms(r.ours.cpuPerRequest.index),
          ms(r.ours.cpuPerRequest.generator),
          ms(r.hop.cpuPerRequest.hop),
          ms(r.hop.cpuPerRequest.engine),
          ms(r.hop.cpuPerRequest.index),
          ms(r.raw.cpuPerRequest.engine),
          ms(r.raw.cpuPerRequest.index),
          ms(r.raw.cpuPerRequest.generator),
        ]),
      ),
    );
    if (SQL) {
      console.log(`SQL at concurrency ${concurrency}: POST .../sql vs the equivalent search (POST .../execute)`);
      console.log(
        table(
          [
            'query kind',
            'search p50',
            'sql p50',
            'sql - search p50',
            'search req/s',
            'sql req/s',
            'search api CPU',
            'sql api CPU',
          ],
          rows.map((r) => {
            const o = summarize(r.ours);
            const q = summarize(r.sql!);
            if (concurrency === 1 && q.p50 - o.p50 > 0.3)
              misses.push(`c1 ${r.name}: sql - search p50 ${ms(q.p50 - o.p50)} ms`);
            return [
              r.name,
              ms(o.p50),
              ms(q.p50),
              ms(q.p50 - o.p50),
              String(Math.round(o.throughput)),
              String(Math.round(q.throughput)),
              ms(r.ours.cpuPerRequest.api),
              ms(r.sql!.cpuPerRequest.api),
            ];
          }),
        ),
      );
    }
    if (rows.some((r) => r.oursB)) {
      console.log(`A/B at concurrency ${concurrency}: ours B = a second API process with ${B_LABEL}`);
      const pairs = rows.map((r) => ({
        name: r.name,
        a: summarize(r.ours),
        b: summarize(r.oursB!),
        cpu: r.ours.cpuPerRequest.api,
        cpuB: r.oursB!.cpuPerRequest.apiB,
        engine: r.ours.cpuPerRequest.engine,
        engineB: r.oursB!.cpuPerRequest.engine,
        index: r.ours.cpuPerRequest.index,
        indexB: r.oursB!.cpuPerRequest.index,
      }));
      console.log(
        table(
          [
            'query kind',
            'A p50',
            'B p50',
            'B/A p50',
            'A p95',
            'B p95',
            'A req/s',
            'B req/s',
            'B/A req/s',
            'A api CPU',
            'B api CPU',
            'B/A CPU',
            'A engine CPU',
            'B engine CPU',
            'A index',
            'B index',
          ],
          pairs.map(({ name, a, b, cpu, cpuB, engine, engineB, index, indexB }) => [
            name,
            ms(a.p50),
            ms(b.p50),
            fixed(b.p50 / a.p50),
            ms(a.p95),
            ms(b.p95),
            String(Math.round(a.throughput)),
            String(Math.round(b.throughput)),
            fixed(b.throughput / a.throughput),
            ms(cpu),
            ms(cpuB),
            fixed(cpuB / cpu),
            ms(engine),
            ms(engineB),
            ms(index),
            ms(indexB),
          ]),
        ),
      );
      const overAll = (ratio: (pair: (typeof pairs)[number]) => number) => fixed(geometricMean(pairs.map(ratio)));
      console.log(
        `B/A over all kinds (geometric mean): p50 ${overAll(({ a, b }) => b.p50 / a.p50)}, ` +
          `req/s ${overAll(({ a, b }) => b.throughput / a.throughput)}, api CPU ${overAll(({ cpu, cpuB }) => cpuB / cpu)}`,
      );
      // The A/A figures below: 13 kinds at 32 in flight, 4 rounds of 3 s. A change run as B once read 1.05 over all
      // while its mirror (the same two settings, A and B swapped) read 1.02 for the other one.
      console.log('  (A/A read req/s 0.82-1.12 per kind, 1.00 over all: confirm a few percent with the mirrored run)');
    }
    console.log('');
  }
  console.log('targets, every query kind (informational):');
  console.log(
    `  concurrency 1: ours - hop p50 <= 0.5 ms and sql - search p50 <= 0.3 ms; concurrency ${maxConcurrency}: ours/hop p50 <= 1.15 and ours req/s >= 0.85 x hop`,
  );
  console.log(
    `  ${verdict(misses.length === 0)}  ${misses.length === 0 ? 'all kinds within target' : `${misses.length} misses:`}`,
  );
  for (const miss of misses) console.log(`    MISS ${miss}`);
}
