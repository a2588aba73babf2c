/**
 * `pnpm bench:search`: our search (HTTP execute endpoint of an in-process API) against the same compiled
 * OpenSearch body sent raw, side by side in one run, over N Orb-shaped invoices of one connector.
 *
 *   BENCH_DOCS=1000000   documents to load (default 1,000,000); a rerun with the same N skips the load
 *   BENCH_SECONDS=5      measured seconds per query kind and side (after 1 s of warm-up each)
 *   BENCH_CONCURRENCY=32 requests in flight
 *   BENCH_CLEAN=1        delete the loaded index at the end (it is kept otherwise, for fast reruns)
 *
 * Needs the local Postgres, Redis and OpenSearch (as `./dev test` does). The index lives in namespace `bench`
 * (alias `bench_orb_invoices`) under the fixed connector id below. Exit code 0 unless something crashed;
 * PASS/MISS lines are informational.
 */
import { entityOf, findConnectorDefinition } from '@conduit/connectors';
import { planSearch, readSearchPage, type SearchBody } from '@conduit/search-dsl';
import { startTestPlatform } from '../harness/platform.ts';
import { INVOICE_SPAN, invoiceId, invoiceRecord } from './invoice-records.ts';
import { fixed, merge, ms, runConcurrent, type Samples, type Summary, summarize, table, verdict } from './stats.ts';

const DOCS = Number(process.env.BENCH_DOCS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const CLEAN = process.env.BENCH_CLEAN === '1';
const NAMESPACE = 'bench';
const CONNECTOR_ID = 'b3c00000-0000-4000-8000-00000000be4c';
const LOAD_BATCH = 5000;
const LOAD_CONCURRENCY = 3;
const DEEP_PAGE = 500;
const VARIANTS = 256;
const HOUR_MS = 3_600_000;

const catalog = findConnectorDefinition('Orb')?.catalog;
const entity = catalog ? entityOf(catalog, 'invoices') : undefined;
if (!entity?.searchable) throw new Error('the Orb catalog has no searchable invoices');

const platform = await startTestPlatform({
  worker: false,
  env: { NAMESPACE, RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'info' },
});
const { deps } = platform.api;
const indexStore = deps.indexStore;
const client = indexStore.client;
const alias = indexStore.alias('Orb', 'invoices');

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

  await load();
  await warmUpToken();

  const kinds = queryKinds();
  const results: { name: string; selective: boolean; ours: Samples; raw: Samples }[] = [];
  for (const kind of kinds) {
    const plans = kind.params.map((params) => planFor(params));
    const ours = (i: number) => oursSearch(kind.params[i % kind.params.length]!);
    const raw = (i: number) => rawSearch(plans[i % plans.length]!.body);
    await runConcurrent(ours, { concurrency: CONCURRENCY, durationMs: 1000 });
    await runConcurrent(raw, { concurrency: CONCURRENCY, durationMs: 1000 });
    const oursSamples = await measured(`${kind.name} ours`, ours);
    const rawSamples = await measured(`${kind.name} raw`, raw);
    results.push({ name: kind.name, selective: kind.selective, ours: oursSamples, raw: rawSamples });
    platform.logLines.length = 0;
    const o = summarize(oursSamples);
    const r = summarize(rawSamples);
    console.log(
      `  ${kind.name.padEnd(14)} ours p50 ${ms(o.p50)} ms (${Math.round(o.throughput)} req/s)  raw p50 ${ms(r.p50)} ms (${Math.round(r.throughput)} req/s)`,
    );
  }

  const deep = await deepPaging();
  report(results, deep);
} finally {
  if (CLEAN) {
    const targets = await client.indices.getAlias({ name: alias }, { ignore: [404] });
    for (const index of Object.keys((targets.body ?? {}) as Record<string, unknown>)) {
      if (index === 'error' || index === 'status') continue;
      await client.indices.delete({ index }, { ignore: [404] });
    }
    console.log(`BENCH_CLEAN=1: deleted the index behind ${alias}`);
  }
  await platform.close();
}

// ---------------------------------------------------------------------------------------------------------------

async function load(): Promise<void> {
  const index = await indexStore.ensureIndex('Orb', entity!);
  await indexStore.refresh('Orb', 'invoices');
  const present = await indexStore.count('Orb', 'invoices', CONNECTOR_ID);
  if (present === DOCS) {
    console.log(`index ${alias} already holds ${DOCS} documents for ${CONNECTOR_ID}: load skipped`);
    return;
  }
  if (present > DOCS) {
    // More than asked for: start over, the extra documents would skew every query.
    const targets = Object.keys((await client.indices.getAlias({ name: alias })).body as Record<string, unknown>);
    for (const target of targets) await client.indices.delete({ index: target });
    await load();
    return;
  }
  console.log(`loading ${DOCS} invoices into ${index} (found ${present}) ...`);
  const settings = (values: Record<string, unknown>) => client.indices.putSettings({ index: alias, body: values });
  await settings({ 'index.refresh_interval': '-1', 'index.translog.durability': 'async' });
  const started = performance.now();
  let next = 0;
  let written = 0;
  let lastReport = started;
  const worker = async () => {
    for (;;) {
      const from = next;
      if (from >= DOCS) return;
      next += LOAD_BATCH;
      const records: Record<string, unknown>[] = [];
      for (let i = from; i < Math.min(from + LOAD_BATCH, DOCS); i++) records.push(invoiceRecord(i, DOCS));
      const result = await indexStore.writeBatch('Orb', entity!, CONNECTOR_ID, 'bench-load', records);
      written += result.indexed;
      if (performance.now() - lastReport > 10_000) {
        lastReport = performance.now();
        const seconds = (lastReport - started) / 1000;
        console.log(`  ${written} documents, ${Math.round(written / seconds)} docs/s`);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: LOAD_CONCURRENCY }, worker));
  } finally {
    await settings({ 'index.refresh_interval': '1s', 'index.translog.durability': 'request' });
  }
  await client.indices.refresh({ index: alias });
  const seconds = (performance.now() - started) / 1000;
  const count = await indexStore.count('Orb', 'invoices', CONNECTOR_ID);
  console.log(
    `loaded ${written} documents in ${seconds.toFixed(1)} s (${Math.round(written / seconds)} docs/s); count ${count}`,
  );
  if (count !== DOCS) throw new Error(`expected ${DOCS} documents after the load, found ${count}`);
}

async function warmUpToken(): Promise<void> {
  const response = await platform.call('GET', `/api/v1/integrations/connectors/${CONNECTOR_ID}`);
  if (response.status !== 200) throw new Error(`connector lookup failed: ${response.status} ${await response.text()}`);
}

type SearchParamsValue = { query: Record<string, unknown>; limit: number; cursor?: string };

interface QueryKind {
  readonly name: string;
  /** Few matches: the p50 ≤ 10 ms / p99 ≤ 50 ms targets apply. */
  readonly selective: boolean;
  readonly params: readonly SearchParamsValue[];
}

function queryKinds(): QueryKind[] {
  let seed = 42;
  const random = () => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return seed / 4_294_967_296;
  };
  const anyIndex = () => Math.floor(random() * DOCS);
  const instant = (offsetMs = 0) => {
    const at = INVOICE_SPAN.fromMs + Math.floor(random() * (INVOICE_SPAN.toMs - INVOICE_SPAN.fromMs - 2 * 86_400_000));
    return new Date(at + offsetMs).toISOString();
  };
  const variants = (make: () => SearchParamsValue) => Array.from({ length: VARIANTS }, make);
  const typos = ['thnak you', 'busines', 'overgae', 'prepiad commitment', 'enterprize seats', 'tranfser'];
  const words = ['business', 'overage API', 'prepaid', 'wire transfer', 'seats', 'remise partenaire'];
  return [
    { name: 'eq id', selective: true, params: variants(() => q({ eq: { id: invoiceId(anyIndex()) } })) },
    {
      name: 'in 10 ids',
      selective: true,
      params: variants(() => q({ in: { id: Array.from({ length: 10 }, () => invoiceId(anyIndex())) } })),
    },
    {
      name: 'range 6h',
      selective: true,
      params: variants(() => {
        const from = instant();
        return q({ and: [{ gte: { invoice_date: from } }, { lt: { invoice_date: plus(from, 6 * HOUR_MS) } }] });
      }),
    },
    {
      name: 'like url',
      selective: true,
      params: variants(() => q({ like: { hosted_invoice_url: `%/invoices/${Math.floor(anyIndex() / 2)}-%` } })),
    },
    {
      name: 'and/or/not',
      selective: true,
      params: variants(() => {
        const from = instant();
        return q({
          and: [
            { in: { status: ['paid', 'issued'] } },
            { gte: { invoice_date: from } },
            { lt: { invoice_date: plus(from, 24 * HOUR_MS) } },
            { or: [{ eq: { memo: null } }, { keyword: { memo: pickOf(words, random) } }] },
            { not: { eq: { amount_due: '0.00' } } },
          ],
        });
      }),
    },
    { name: 'fuzzy memo', selective: false, params: variants(() => q({ fuzzy: { memo: pickOf(typos, random) } })) },
    {
      name: 'keyword memo',
      selective: false,
      params: variants(() => q({ keyword: { memo: pickOf(words, random) } })),
    },
    {
      name: 'eq status',
      selective: false,
      params: variants(() => q({ eq: { status: pickOf(['draft', 'issued', 'paid', 'void'], random) } }, 100)),
    },
    {
      name: 'sort date',
      selective: false,
      params: variants(() => ({
        query: {
          filter: { and: [{ eq: { status: pickOf(['issued', 'paid'], random) } }, { gte: { due_date: instant() } }] },
          sort: [{ invoice_date: random() < 0.5 ? 'asc' : 'desc' }],
        },
        limit: 10,
      })),
    },
  ];
}

function q(filter: Record<string, unknown>, limit = 10): SearchParamsValue {
  return { query: { filter }, limit };
}

function plus(iso: string, deltaMs: number): string {
  return new Date(Date.parse(iso) + deltaMs).toISOString();
}

function pickOf<T>(values: readonly T[], random: () => number): T {
  return values[Math.floor(random() * values.length)]!;
}

function planFor(params: SearchParamsValue) {
  return planSearch(params, {
    searchable: entity!.searchable ?? {},
    recordKey: entity!.recordKey,
    connectorId: CONNECTOR_ID,
    entity: 'Orb/invoices',
    cursorKey: 'bench-raw-cursor-key',
  });
}

interface OursPage {
  data: Record<string, unknown>[];
  meta: { has_more: boolean; cursor: string | null };
}

async function oursSearch(params: SearchParamsValue): Promise<OursPage> {
  const response = await platform.call('POST', `/api/v1/integrations/connectors/${CONNECTOR_ID}/execute`, {
    entity: 'invoices',
    action: 'search',
    params,
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`execute answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as OursPage;
}

interface RawHit {
  sort: (string | number)[];
}

async function rawSearch(body: SearchBody): Promise<RawHit[]> {
  const response = await client.search({
    index: alias,
    routing: CONNECTOR_ID,
    body: body as unknown as Record<string, unknown>,
  });
  return (response.body as unknown as { hits: { hits: RawHit[] } }).hits.hits;
}

async function measured(label: string, task: (i: number) => Promise<unknown>): Promise<Samples> {
  const samples = await runConcurrent(
    async (i) => {
      await task(i);
    },
    { concurrency: CONCURRENCY, durationMs: SECONDS * 1000 },
  );
  if (samples.errors > 0) console.log(`  ${label}: ${samples.errors} errors, first: ${String(samples.firstError)}`);
  return samples;
}

interface DeepResult {
  oursPage1: Samples;
  oursDeep: Samples;
  rawPage1: Samples;
  rawDeep: Samples;
  walkMs: { ours: number; raw: number };
}

/** Follows cursors from page 1 to page 500 (10 records a page), then times page 1 and page 500 repeatedly. */
async function deepPaging(): Promise<DeepResult> {
  const base: SearchParamsValue = {
    query: { filter: { eq: { status: 'paid' } }, sort: [{ invoice_date: 'desc' }] },
    limit: 10,
  };
  let started = performance.now();
  let cursor: string | null = null;
  for (let page = 1; page < DEEP_PAGE; page++) {
    const result: OursPage = await oursSearch(cursor ? { ...base, cursor } : base);
    cursor = result.meta.cursor;
    if (!cursor) throw new Error(`ran out of pages at page ${page}`);
  }
  const oursWalk = performance.now() - started;
  const deepParams: SearchParamsValue = { ...base, cursor: cursor! };

  const plan = planFor(base);
  started = performance.now();
  let searchAfter: (string | number)[] | undefined;
  for (let page = 1; page < DEEP_PAGE; page++) {
    const hits = await rawSearch(searchAfter ? { ...plan.body, search_after: searchAfter } : plan.body);
    if (hits.length <= base.limit) throw new Error(`raw paging ran out at page ${page}`);
    searchAfter = hits[base.limit - 1]!.sort;
  }
  const rawWalk = performance.now() - started;
  const deepBody: SearchBody = { ...plan.body, search_after: searchAfter! };

  // Both walks must land on the same page 500.
  const ourDeepPage = await oursSearch(deepParams);
  const rawDeepHits = await rawSearch(deepBody);
  const rawFirstKey = (rawDeepHits[0] as unknown as { _source: { _key: string } })._source._key;
  const check = readSearchPage({ hits: { hits: rawDeepHits } }, plan.page).data[0];
  if (ourDeepPage.data[0]?.id !== rawFirstKey || check?.id !== rawFirstKey) {
    throw new Error(`page ${DEEP_PAGE} differs: ours ${String(ourDeepPage.data[0]?.id)} vs raw ${rawFirstKey}`);
  }

  const run = async (label: string, task: () => Promise<unknown>) => {
    await runConcurrent(async () => void (await task()), { concurrency: CONCURRENCY, durationMs: 1000 });
    return measured(label, task);
  };
  const oursPage1 = await run('deep ours page 1', () => oursSearch(base));
  const oursDeep = await run(`deep ours page ${DEEP_PAGE}`, () => oursSearch(deepParams));
  const rawPage1 = await run('deep raw page 1', () => rawSearch(plan.body));
  const rawDeep = await run(`deep raw page ${DEEP_PAGE}`, () => rawSearch(deepBody));
  return { oursPage1, oursDeep, rawPage1, rawDeep, walkMs: { ours: oursWalk, raw: rawWalk } };
}

function report(results: { name: string; selective: boolean; ours: Samples; raw: Samples }[], deep: DeepResult) {
  const row = (name: string, ours: Summary, raw: Summary) => [
    name,
    ms(ours.p50),
    ms(ours.p95),
    ms(ours.p99),
    String(Math.round(ours.throughput)),
    ms(raw.p50),
    ms(raw.p95),
    ms(raw.p99),
    String(Math.round(raw.throughput)),
    fixed(ours.p50 / raw.p50),
    String(ours.errors + raw.errors),
  ];
  const rows = results.map((r) => row(`${r.name}${r.selective ? ' *' : ''}`, summarize(r.ours), summarize(r.raw)));
  const overallOurs = summarize(merge(results.map((r) => r.ours)));
  const overallRaw = summarize(merge(results.map((r) => r.raw)));
  const selectiveOurs = summarize(merge(results.filter((r) => r.selective).map((r) => r.ours)));
  const selectiveRaw = summarize(merge(results.filter((r) => r.selective).map((r) => r.raw)));
  rows.push(row('selective (*)', selectiveOurs, selectiveRaw));
  rows.push(row('overall', overallOurs, overallRaw));

  const d = {
    oursPage1: summarize(deep.oursPage1),
    oursDeep: summarize(deep.oursDeep),
    rawPage1: summarize(deep.rawPage1),
    rawDeep: summarize(deep.rawDeep),
  };

  console.log(`\n=== search: ${DOCS} Orb invoices, concurrency ${CONCURRENCY}, ${SECONDS} s per kind and side ===`);
  console.log('latencies in ms; ours = POST /execute through the in-process API, raw = same body via the client\n');
  console.log(
    table(
      ['query kind', 'ours p50', 'p95', 'p99', 'req/s', 'raw p50', 'p95', 'p99', 'req/s', 'ours/raw p50', 'errors'],
      rows,
    ),
  );
  console.log(`\ndeep paging (10-record pages, filter status=paid, sort invoice_date desc; walk to page ${DEEP_PAGE}:`);
  console.log(`ours ${(deep.walkMs.ours / 1000).toFixed(1)} s, raw ${(deep.walkMs.raw / 1000).toFixed(1)} s)\n`);
  console.log(
    table(
      ['side', 'page 1 p50', 'p99', `page ${DEEP_PAGE} p50`, 'p99', `p${DEEP_PAGE}/p1 p50`],
      [
        [
          'ours',
          ms(d.oursPage1.p50),
          ms(d.oursPage1.p99),
          ms(d.oursDeep.p50),
          ms(d.oursDeep.p99),
          fixed(d.oursDeep.p50 / d.oursPage1.p50),
        ],
        [
          'raw',
          ms(d.rawPage1.p50),
          ms(d.rawPage1.p99),
          ms(d.rawDeep.p50),
          ms(d.rawDeep.p99),
          fixed(d.rawDeep.p50 / d.rawPage1.p50),
        ],
      ],
    ),
  );

  const ratio = overallOurs.p50 / overallRaw.p50;
  const perKindWorst = Math.max(...results.map((r) => summarize(r.ours).p50 / summarize(r.raw).p50));
  const deepRatio = d.oursDeep.p50 / d.oursPage1.p50;
  console.log('\ntargets (informational):');
  console.log(`  ${verdict(ratio <= 1.3)}  overall ours/raw p50 ${fixed(ratio)} <= 1.3`);
  console.log(`  ${verdict(perKindWorst <= 1.3)}  worst query kind ours/raw p50 ${fixed(perKindWorst)} <= 1.3`);
  console.log(`  ${verdict(selectiveOurs.p50 <= 10)}  selective ours p50 ${ms(selectiveOurs.p50)} ms <= 10 ms`);
  console.log(`  ${verdict(selectiveOurs.p99 <= 50)}  selective ours p99 ${ms(selectiveOurs.p99)} ms <= 50 ms`);
  for (const r of results.filter((k) => k.selective)) {
    const s = summarize(r.ours);
    console.log(`  ${verdict(s.p50 <= 10 && s.p99 <= 50)}    ${r.name}: p50 ${ms(s.p50)} ms, p99 ${ms(s.p99)} ms`);
  }
  console.log(`  ${verdict(deepRatio <= 2)}  deep paging ours page ${DEEP_PAGE}/page 1 p50 ${fixed(deepRatio)} <= 2`);
}
