/**
 * `pnpm bench:semantic-latency`: a search by meaning against a plain filtered search over the same records, side by
 * side in one run, p50/p95 of the engine round trip (the API adds the query's embedding, ≈ 3-5 ms, kept per text).
 * RECORDS incidents (default 200,000) of one connector, each with a random unit vector (the engine's cost does not
 * depend on what the vectors mean), then SEARCHES of each kind in alternation, after WARM_UP of each: a filter
 * (`mode = standard`) with the default sort, and the same filter with `query.semantic` (its k-NN search and its word
 * search at once, as the API sends them). Measured twice: over the segments as loaded, then force-merged to one.
 *
 * The load is a bulk load (no refresh, no replica, the translog never forcing a flush), its phases timed. KEEP_INDEX=1
 * keeps the loaded index (`semantic-latency-<RECORDS>`) and a later run with it measures that index again without
 * loading. OPENSEARCH_URL as the platform reads it.
 */
import { loadavg } from 'node:os';
import { entityOf, findConnectorDefinition } from '@conduit/connectors';
import { buildIndexMapping, indexDocumentId, planSearch, toIndexDocument, VECTOR_FIELDS } from '@conduit/search-dsl';
import { Client } from '@opensearch-project/opensearch';

const url = (process.env.OPENSEARCH_URL ?? 'http://127.0.0.1:9200').split(',')[0]!.trim();
const records = Number(process.env.RECORDS ?? 200_000);
const searches = Number(process.env.SEARCHES ?? 200);
const keep = process.env.KEEP_INDEX === '1';
const entity = entityOf(findConnectorDefinition('Incident-Io')!.catalog, 'incidents')!;
const searchable = entity.searchable ?? {};
// A bulk of vectors answers in tens of seconds on a busy machine: longer than the client's 30 s default, and a
// retried bulk would only index its records again.
const client = new Client({ node: url, requestTimeout: 2 * 60 * 60 * 1000, maxRetries: 0 });
const index = `semantic-latency-${records}`;
const connectorId = 'bench';
const words = ['checkout', 'login', 'database', 'latency', 'payments', 'dns', 'webhook', 'cache', 'deploy', 'errors'];
const options = {
  searchable,
  recordKey: 'id',
  embed: entity.embed ?? [],
  connectorId,
  entity: 'incidents',
  cursorKey: 'b',
};
/**
 * Records per bulk request (≈ 4 kB each with its vector), one request in flight: the engine's other write thread
 * stays free for whoever else shares the node, and each bulk answers within seconds.
 */
const LOAD_BATCH = 2000;
/** Searches of each kind run first and not counted: the first ones read the graph and the segment from disk. */
const WARM_UP = 20;

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

function unit(): number[] {
  const v = Array.from({ length: 384 }, () => Math.random() - 0.5);
  const n = Math.hypot(...v);
  return v.map((x) => Math.round((x / n) * 1e5) / 1e5);
}

function bulkBody(from: number, to: number): Record<string, unknown>[] {
  const body: Record<string, unknown>[] = [];
  for (let i = from; i < to; i++) {
    const record = {
      id: `inc-${i}`,
      name: `${words[i % 10]} ${words[(i * 7) % 10]} incident ${i}`,
      summary: `customers saw ${words[(i * 3) % 10]} problems`,
      mode: i % 4 === 0 ? 'retrospective' : 'standard',
    };
    body.push({ index: { _index: index, _id: indexDocumentId(connectorId, record.id), routing: connectorId } });
    body.push({
      ...toIndexDocument(record, { searchable, recordKey: 'id', connectorId }),
      [VECTOR_FIELDS.vector]: unit(),
    });
  }
  return body;
}

/** Loads RECORDS records with the bulk load's settings, then gives the index the engine's default refresh (1 s) back. */
async function loadIndex(): Promise<void> {
  const { settings, mappings } = buildIndexMapping(searchable, 'id', entity.embed);
  // No refresh and no replica while loading, and a translog that never forces a flush (the indexing buffer alone
  // cuts segments): Lucene builds each segment's HNSW graph once, as the segment fills.
  // https://opensearch.org/docs/2.19/tuning-your-cluster/performance/
  await client.indices.create({
    index,
    body: {
      settings: {
        ...settings,
        number_of_shards: 1,
        number_of_replicas: 0,
        refresh_interval: '-1',
        'translog.durability': 'async',
        'translog.flush_threshold_size': '4gb',
      },
      mappings,
    },
  });
  const started = performance.now();
  for (let start = 0; start < records; start += LOAD_BATCH) {
    const answer = await client.bulk({ body: bulkBody(start, Math.min(records, start + LOAD_BATCH)) });
    if ((answer.body as { errors: boolean }).errors) throw new Error(`bulk load failed at record ${start}`);
  }
  const bulk = (performance.now() - started) / 1000;
  await client.indices.putSettings({ index, body: { refresh_interval: '1s', 'translog.durability': 'request' } });
  await client.indices.refresh({ index });
  const total = (performance.now() - started) / 1000;
  console.log(
    `${records} records loaded in ${total.toFixed(0)} s (bulk ${bulk.toFixed(0)} s, refresh ${(total - bulk).toFixed(0)} s), load average ${load()}`,
  );
}

async function segmentCount(): Promise<number> {
  // A refresh first: a search-idle shard shows the segments it had before a merge until it is refreshed.
  await client.indices.refresh({ index });
  return ((await client.cat.segments({ index, format: 'json' })).body as unknown[]).length;
}

async function measure(label: string): Promise<void> {
  const filter = { eq: { mode: 'standard' } };
  const plain = planSearch({ query: { filter }, limit: 10, fields: ['id', 'name'] }, options).body;
  // `semantic` is what the API waits for; `k-NN` and `words` are its two searches timed alone, one after the other,
  // to tell which of them sets its time.
  const timings = { plain: [] as number[], semantic: [] as number[], 'k-NN': [] as number[], words: [] as number[] };
  const timed = async (list: number[], counted: boolean, run: () => Promise<unknown>) => {
    const started = performance.now();
    await run();
    if (counted) list.push(performance.now() - started);
  };
  const search = (body: unknown) =>
    client.search({ index, routing: connectorId, body: body as Record<string, unknown> });
  for (let i = -WARM_UP; i < searches; i++) {
    const counted = i >= 0;
    await timed(timings.plain, counted, () => search(plain));
    const plan = planSearch(
      {
        query: { filter, semantic: { text: `${words[(i + WARM_UP) % 10]} outage` } },
        limit: 10,
        fields: ['id', 'name'],
      },
      options,
    );
    const vector = unit();
    // Both searches at once, as the API sends them (apps/api/src/services/search-service.ts).
    await timed(timings.semantic, counted, () =>
      Promise.all([search(plan.semantic!.vectorBody(vector)), search(plan.semantic!.textBody)]),
    );
    await timed(timings['k-NN'], counted, () => search(plan.semantic!.vectorBody(unit())));
    await timed(timings.words, counted, () => search(plan.semantic!.textBody));
  }
  const pct = (list: number[], p: number) => [...list].sort((a, b) => a - b)[Math.floor((list.length - 1) * p)]!;
  console.log(`${label}, load average ${load()}:`);
  for (const [kind, list] of Object.entries(timings)) {
    console.log(
      `  ${kind.padEnd(8)} p50 ${pct(list, 0.5).toFixed(1)} ms  p95 ${pct(list, 0.95).toFixed(1)} ms  (${list.length} searches)`,
    );
  }
  console.log(`  semantic / plain p95: ${(pct(timings.semantic, 0.95) / pct(timings.plain, 0.95)).toFixed(2)}x`);
}

try {
  const kept =
    (await client.indices.exists({ index })).body === true &&
    ((await client.count({ index })).body as { count: number }).count === records;
  if (!kept) {
    await client.indices.delete({ index }, { ignore: [404] });
    await loadIndex();
  } else console.log(`${index} kept from an earlier run: not loaded again`);
  await measure(`${records} records in ${await segmentCount()} segment(s)`);
  const started = performance.now();
  // One segment, one graph: the force-merge answers when it is done (minutes at 200,000 vectors).
  await client.indices.forcemerge({ index, max_num_segments: 1 });
  console.log(`force-merged in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  await measure(`${records} records in ${await segmentCount()} segment(s)`);
} finally {
  if (!keep) await client.indices.delete({ index }, { ignore: [404] });
  await client.close();
}
