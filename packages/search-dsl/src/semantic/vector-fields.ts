import type { FieldMap } from '@conduit/connectors';

/**
 * Where a document keeps its meaning (docs/search.md, "Search by meaning"): the vector of its embedded text, and a
 * hash of that text, so that an unchanged text is never embedded again and a late vector never lands on a changed
 * text.
 */
export const VECTOR_FIELDS = Object.freeze({ vector: '_embedding', textHash: '_embedding_hash' });

/** all-MiniLM-L6-v2's sentence vectors (infra/scripts/embedding-model.sh); a model of the same form has as many. */
export const EMBEDDING_DIMENSIONS = 384;

/**
 * The embedded fields' word side of hybrid ranking: OpenSearch's English analyzer drops stopwords and stems, so
 * filler words ("at", "a", "was") score nothing and cannot outrank the meaning.
 * https://opensearch.org/docs/2.19/analyzers/language-analyzers/english/
 */
export const ENGLISH_SUBFIELD = 'en';

/**
 * The vector's mapping: HNSW in the k-NN plugin's Lucene engine, cosine similarity. Lucene, named explicitly:
 * the plugin's default engine (faiss) needs a native library that the Maven artifact does not carry.
 * https://opensearch.org/docs/2.19/field-types/supported-field-types/knn-vector/
 */
export function vectorMappings(): Record<string, unknown> {
  return {
    [VECTOR_FIELDS.vector]: {
      type: 'knn_vector',
      dimension: EMBEDDING_DIMENSIONS,
      method: {
        name: 'hnsw',
        engine: 'lucene',
        space_type: 'cosinesimil',
        parameters: { m: 16, ef_construction: 100 },
      },
    },
    [VECTOR_FIELDS.textHash]: { type: 'keyword' },
  };
}

/** The embedded fields an entity may use: those named in `embed` that are searchable strings or arrays of them. */
export function embeddedStringFields(searchable: FieldMap, embed: readonly string[]): string[] {
  return embed.filter((name) => {
    const spec = searchable[name];
    return spec?.type === 'string' || (spec?.type === 'array' && spec.items?.type === 'string');
  });
}
