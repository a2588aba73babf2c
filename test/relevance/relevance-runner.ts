import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { entityOf, findConnectorDefinition } from '@conduit/connectors';
import { createEmbedder, type Embedder } from '@conduit/embeddings';
import {
  buildIndexMapping,
  fuseSemantic,
  indexDocumentId,
  planSearch,
  toIndexDocument,
  VECTOR_FIELDS,
} from '@conduit/search-dsl';
import { Client } from '@opensearch-project/opensearch';
import { type Judgement, type RelevanceIncident, relevanceSet, scoreRanking } from './relevance-set.ts';

/** The three rankings compared: words only, meaning only, and the fusion `query.semantic` answers with. */
export const RANKINGS = ['text', 'vector', 'hybrid'] as const;
export type Ranking = (typeof RANKINGS)[number];

export interface RelevanceScores {
  readonly queries: number;
  readonly ndcg: Record<Ranking, number>;
  readonly recall: Record<Ranking, number>;
  /** By query kind (paraphrase, synonyms, typos, question): hybrid nDCG@10. */
  readonly hybridByKind: Record<string, number>;
  /** Negatives: the best cosine similarity any incident reaches, median over the negative queries. */
  readonly negativeMedianTopSimilarity: number;
}

const CONNECTOR = 'relevance';

/**
 * Loads the relevance set's incidents into a throw-away index of incident.io's `incidents` mapping (vectors computed
 * by the platform's embedder), plans each query with `planSearch` as the API does, and scores the word ranking,
 * the vector ranking and their fusion by nDCG@10 and recall@10. `only`: a subset of the judgements.
 */
export async function measureRelevance(
  opensearchUrl: string,
  modelDir: string,
  only?: (judgement: Judgement, index: number) => boolean,
): Promise<RelevanceScores> {
  const entity = entityOf(findConnectorDefinition('Incident-Io')!.catalog, 'incidents')!;
  const { incidents, judgements } = relevanceSet();
  const client = new Client({ node: opensearchUrl });
  const index = `relevance-${randomBytes(5).toString('hex')}`;
  const embedder = await createEmbedder({ modelDir });
  try {
    const { settings, mappings } = buildIndexMapping(entity.searchable ?? {}, entity.recordKey, entity.embed);
    await client.indices.create({ index, body: { settings: { ...settings, number_of_shards: 1 }, mappings } });
    await load(client, index, incidents, embedder, entity.searchable ?? {});
    const chosen = judgements.filter((j, i) => !only || only(j, i));
    const sums = { ndcg: zero(), recall: zero() };
    const byKind = new Map<string, { sum: number; n: number }>();
    const negatives: number[] = [];
    let scored = 0;
    for (const judgement of chosen) {
      const plan = planSearch(
        { query: { semantic: { text: judgement.query } }, limit: 10, fields: ['id'] },
        {
          searchable: entity.searchable ?? {},
          recordKey: entity.recordKey,
          embed: entity.embed ?? [],
          connectorId: CONNECTOR,
          entity: 'incidents',
          cursorKey: 'relevance',
        },
      );
      const semantic = plan.semantic!;
      const [vector] = await embedder.embed([judgement.query]);
      const words = (
        await client.search({
          index,
          routing: CONNECTOR,
          body: semantic.textBody as unknown as Record<string, unknown>,
        })
      ).body;
      const plainWords = (
        await client.search({
          index,
          routing: CONNECTOR,
          body: wordSearch(semantic.textBody, judgement.query, entity.embed ?? []),
        })
      ).body;
      const vectors = (
        await client.search({ index, routing: CONNECTOR, body: semantic.vectorBody(Array.from(vector!)) })
      ).body;
      if (judgement.relevant.length === 0) {
        const top = (vectors as unknown as { hits: { hits: { sort: [number] }[] } }).hits.hits[0]?.sort[0] ?? 0;
        negatives.push(2 * top - 1);
        continue;
      }
      const rankings: Record<Ranking, string[]> = {
        text: idsOf(plainWords, true),
        vector: idsOf(vectors, false),
        hybrid: fuseSemantic(words, vectors, semantic, plan.page).data.map((r) => String(r.id)),
      };
      for (const ranking of RANKINGS) {
        const score = scoreRanking(rankings[ranking], judgement.relevant);
        sums.ndcg[ranking] += score.ndcg;
        sums.recall[ranking] += score.recall;
        if (ranking === 'hybrid') {
          const kind = byKind.get(judgement.kind) ?? { sum: 0, n: 0 };
          kind.sum += score.ndcg;
          kind.n++;
          byKind.set(judgement.kind, kind);
        }
      }
      scored++;
    }
    const mean = (r: Record<Ranking, number>) =>
      Object.fromEntries(RANKINGS.map((k) => [k, scored ? r[k] / scored : 0])) as Record<Ranking, number>;
    negatives.sort((a, b) => a - b);
    return {
      queries: scored,
      ndcg: mean(sums.ndcg),
      recall: mean(sums.recall),
      hybridByKind: Object.fromEntries([...byKind].map(([k, v]) => [k, v.sum / v.n])),
      negativeMedianTopSimilarity: negatives[Math.floor(negatives.length / 2)] ?? 0,
    };
  } finally {
    await client.indices.delete({ index }, { ignore: [404] });
    await client.close();
    await embedder.close();
  }
}

/** The model infra/scripts/embedding-model.sh installs, under the repository. */
export function installedModelDir(): string {
  return join(import.meta.dirname, '../../.data/models/all-minilm-l6-v2-q');
}

async function load(
  client: Client,
  index: string,
  incidents: readonly RelevanceIncident[],
  embedder: Embedder,
  searchable: Parameters<typeof toIndexDocument>[1]['searchable'],
): Promise<void> {
  const vectors = await embedder.embed(incidents.map((i) => [i.name, i.summary].filter(Boolean).join('\n')));
  const body: unknown[] = [];
  incidents.forEach((incident, i) => {
    const doc = toIndexDocument({ ...incident }, { searchable, recordKey: 'id', connectorId: CONNECTOR });
    body.push({ index: { _index: index, _id: indexDocumentId(CONNECTOR, incident.id), routing: CONNECTOR } });
    body.push({ ...doc, [VECTOR_FIELDS.vector]: Array.from(vectors[i] ?? []) });
  });
  const answer = (await client.bulk({ body: body as Record<string, unknown>[], refresh: true })).body as {
    errors: boolean;
  };
  if (answer.errors) throw new Error('loading the relevance set failed');
}

function idsOf(answer: unknown, wordsOnly: boolean): string[] {
  const hits = (answer as { hits: { hits: { sort: [number, string] }[] } }).hits.hits;
  return hits
    .filter((h) => !wordsOnly || h.sort[0] > 0)
    .slice(0, 10)
    .map((h) => h.sort[1]);
}

/**
 * The ranking by words alone that a caller has without search by meaning: every word of the query, any of them, on
 * the embedded fields' word subfields (the `text` subfield the search language's text operators use), by BM25.
 */
function wordSearch(body: object, query: string, fields: readonly string[]): Record<string, unknown> {
  const bool = (body as { query: { bool: Record<string, unknown> } }).query.bool;
  return {
    ...body,
    query: {
      bool: {
        ...bool,
        should: [{ multi_match: { query, fields: fields.map((f) => `${f}.text`), type: 'most_fields' } }],
      },
    },
  };
}

function zero(): Record<Ranking, number> {
  return { text: 0, vector: 0, hybrid: 0 };
}
