import { describe, expect, it } from 'vitest';
import { isSearchQueryError, type SearchQueryError } from '../../errors.ts';
import { planSearch } from '../../plan-search.ts';
import { fuseSemantic } from '../../results/fuse-semantic.ts';
import { TEST_SCHEMA } from '../../testing/test-schema.ts';

const OPTIONS = {
  searchable: TEST_SCHEMA,
  recordKey: 'id',
  embed: ['name'],
  connectorId: 'c1',
  entity: 'things',
  cursorKey: 'k',
};
const plan = (params: unknown, options: Partial<typeof OPTIONS> = {}) => planSearch(params, { ...OPTIONS, ...options });
const problems = (params: unknown, options: Partial<typeof OPTIONS> = {}) => {
  try {
    plan(params, options);
  } catch (error) {
    if (isSearchQueryError(error)) return (error as SearchQueryError).errors.map((e) => e.path);
    throw error;
  }
  return [];
};
/** An engine answer of hits sorted by [score, key], as compileSemantic asks. */
const answer = (hits: [number, string][], total = hits.length) => ({
  took: 2,
  hits: {
    total: { value: total, relation: 'eq' },
    hits: hits.map(([score, key]) => ({ _source: { _key: key, _record: { id: key } }, sort: [score, key] })),
  },
});

describe('query.semantic (compile and fuse)', () => {
  it('applies the connector and the filter inside the k-NN query, and scores words on the English subfields', () => {
    const semantic = plan({
      query: { filter: { eq: { title: 'open' } }, semantic: { text: 'checkout outage' } },
      limit: 5,
    }).semantic!;
    const knn = semantic.vectorBody([0.1, 0.2]) as { query: { knn: { _embedding: { k: number; filter: unknown } } } };
    expect(knn.query.knn._embedding.k).toBe(6);
    expect(JSON.stringify(knn.query.knn._embedding.filter)).toContain('"_connector_id":"c1"');
    expect(JSON.stringify(knn.query.knn._embedding.filter)).toContain('"title":"open"');
    expect(JSON.stringify(semantic.textBody.query)).toContain('"fields":["name.en"]');
  });

  it('counts a record in the word ranking only when it has every word of the text in one field, typos forgiven', () => {
    const semantic = plan({ query: { semantic: { text: 'chekout outage' } } }).semantic!;
    const { bool } = semantic.textBody.query as { bool: { should: { multi_match: Record<string, unknown> }[] } };
    expect(bool.should[0]?.multi_match).toMatchObject({
      query: 'chekout outage',
      type: 'best_fields',
      operator: 'and',
      fuzziness: 'AUTO',
    });
  });

  it('refuses sort and aggregate beside it, fields it does not embed, and entities that embed nothing', () => {
    expect(problems({ query: { semantic: { text: 'x' }, sort: [{ name: 'asc' }] } })).toEqual(['/query/sort']);
    expect(problems({ query: { semantic: { text: 'x' } }, aggregate: { n: { sum: 'amount' } } })).toEqual([
      '/aggregate',
    ]);
    expect(problems({ query: { semantic: { text: 'x', fields: ['title'] } } })).toEqual(['/query/semantic/fields/0']);
    expect(problems({ query: { semantic: { text: 'x' } } }, { embed: [] })).toEqual(['/query/semantic']);
    expect(problems({ query: { semantic: { text: '   ' } } })).toEqual(['/query/semantic/text']);
  });

  it('fuses by reciprocal rank: a record high in both rankings beats one first in words only', () => {
    const p = plan({ query: { semantic: { text: 'checkout outage' } }, limit: 3 });
    const vectors = answer([
      [0.9, 'a'],
      [0.85, 'b'],
      [0.8, 'c'],
    ]);
    const words = answer([
      [7, 'z'],
      [5, 'b'],
      [0, 'a'],
    ]);
    const page = fuseSemantic(words, vectors, p.semantic!, p.page);
    // b: 1/62 + 1/62; a (first by meaning) and z (first by words): 1/61 each, tied, then by key.
    expect(page.data.map((r) => r.id)).toEqual(['b', 'a', 'z']);
    expect(page.meta.scores).toHaveLength(3);
    expect(page.meta.has_more).toBe(true);
    // A word score of 0 is no word match: 'a' gets nothing from the words.
    expect(page.meta.scores[1]).toBeCloseTo(1 / 61, 6);
  });

  it('pages by an offset cursor bound to the text', () => {
    const first = plan({ query: { semantic: { text: 'outage' } }, limit: 1 });
    const vectors = answer([
      [0.9, 'a'],
      [0.8, 'b'],
    ]);
    const page = fuseSemantic(answer([]), vectors, first.semantic!, first.page);
    const next = plan({ query: { semantic: { text: 'outage' } }, limit: 1, cursor: page.meta.cursor });
    expect(next.semantic!.offset).toBe(1);
    expect(fuseSemantic(answer([]), vectors, next.semantic!, next.page).data.map((r) => r.id)).toEqual(['b']);
    expect(problems({ query: { semantic: { text: 'other' } }, limit: 1, cursor: page.meta.cursor })).toEqual([
      '/cursor',
    ]);
  });

  it('answers an empty page when nothing matches (the engine then leaves hits.hits out)', () => {
    const p = plan({ query: { semantic: { text: 'x' } } });
    const empty = { took: 1, hits: { total: { value: 0, relation: 'eq' } } };
    const page = fuseSemantic(empty, empty, p.semantic!, p.page);
    expect([page.data, page.meta.scores, page.meta.has_more]).toEqual([[], [], false]);
  });

  it('leaves out the records under min_score (cosine), and their word matches', () => {
    const p = plan({ query: { semantic: { text: 'x', min_score: 0.5 } } });
    // Lucene's cosine score (1 + cos) / 2: 0.8 is cos 0.6, 0.7 is cos 0.4.
    const page = fuseSemantic(
      answer([[3, 'b']]),
      answer([
        [0.8, 'a'],
        [0.7, 'b'],
      ]),
      p.semantic!,
      p.page,
    );
    expect(page.data.map((r) => r.id)).toEqual(['a']);
  });
});
