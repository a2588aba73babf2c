/**
 * `pnpm bench:semantic-latency`: a search by meaning against a plain filtered search over the same records, side by
 * side in one run, p50/p95 of the engine round trip (the API adds the query's embedding, ≈ 3-5 ms, kept per text).
 * RECORDS incidents (default 200,000) of one connector, each with a random unit vector (the engine's cost does not
 * depend on what the vectors mean), then SEARCHES of each kind in alternation: a filter (`mode = standard`) with the
 * default sort, and the same filter with `query.semantic` (its k-NN search and its word search, one after the other
 * as the API sends them at once, so the sum bounds its time). OPENSEARCH_URL as the platform reads it.
 */
import { randomBytes } from 'node:crypto';
import { entityOf, findConnectorDefinition } from '@conduit/connectors';
import { buildIndexMapping, indexDocumentId, planSearch, toIndexDocument, VECTOR_FIELDS } from '@conduit/search-dsl';
import { Client } from '@opensearch-project/opensearch';

const url = (process.env.OPENSEARCH_URL ?? 'http://127.0.0.1:9200').split(',')[0]!.trim();
const records = Number(process.env.RECORDS ?? 200_000);
const searches = Number(process.env.SEARCHES ?? 200);
const entity = entityOf(findConnectorDefinition('Incident-Io')!.catalog, 'incidents')!;
const searchable = entity.searchable ?? {};
const client = new Client({ node: url });
const index = `semantic-latency-${randomBytes(4).toString('hex')}`;
const connectorId = 'bench';
const words = ['checkout', 'login', 'database', 'latency', 'payments', 'dns', 'webhook', 'cache', 'deploy', 'errors'];
const unit = () => {
  const v = Array.from({ length: 384 }, () => Math.random() - 0.5);
  const n = Math.hypot(...v);
  return v.map((x) => Math.round((x / n) * 1e5) / 1e5);
};
const options = {
  searchable,
  recordKey: 'id',
  embed: entity.embed ?? [],
  connectorId,
  entity: 'incidents',
  cursorKey: 'b',
};

try {
  const { settings, mappings } = buildIndexMapping(searchable, 'id', entity.embed);
  await client.indices.create({
    index,
    body: { settings: { ...settings, number_of_shards: 1, refresh_interval: '-1' }, mappings },
  });
  const loadStarted = performance.now();
  for (let start = 0; start < records; start += 2000) {
    const body: Record<string, unknown>[] = [];
    for (let i = start; i < Math.min(records, start + 2000); i++) {
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
    await client.bulk({ body });
  }
  await client.indices.refresh({ index });
  await client.indices.forcemerge({ index, max_num_segments: 1 }).catch(() => undefined);
  console.log(`${records} records loaded in ${((performance.now() - loadStarted) / 1000).toFixed(0)} s`);
  const filter = { eq: { mode: 'standard' } };
  const plain = planSearch({ query: { filter }, limit: 10, fields: ['id', 'name'] }, options).body;
  const timings = { plain: [] as number[], semantic: [] as number[] };
  for (let i = 0; i < searches; i++) {
    let started = performance.now();
    await client.search({ index, routing: connectorId, body: plain as unknown as Record<string, unknown> });
    timings.plain.push(performance.now() - started);
    const plan = planSearch(
      { query: { filter, semantic: { text: `${words[i % 10]} outage` } }, limit: 10, fields: ['id', 'name'] },
      options,
    );
    started = performance.now();
    await client.search({ index, routing: connectorId, body: plan.semantic!.vectorBody(unit()) });
    await client.search({
      index,
      routing: connectorId,
      body: plan.semantic!.textBody as unknown as Record<string, unknown>,
    });
    timings.semantic.push(performance.now() - started);
  }
  const pct = (list: number[], p: number) =>
    [...list].sort((a, b) => a - b)[Math.floor((list.length - 1) * p)]!.toFixed(1);
  for (const [kind, list] of Object.entries(timings)) {
    console.log(`${kind.padEnd(8)} p50 ${pct(list, 0.5)} ms  p95 ${pct(list, 0.95)} ms  (${list.length} searches)`);
  }
  console.log(
    `semantic / plain p95: ${(Number(pct(timings.semantic, 0.95)) / Number(pct(timings.plain, 0.95))).toFixed(2)}x`,
  );
} finally {
  await client.indices.delete({ index }, { ignore: [404] });
  await client.close();
}
