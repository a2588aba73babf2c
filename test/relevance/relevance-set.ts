import { NAMED, NEGATIVES, TOPICS } from './incident-topics.ts';

/** One incident of the set, in incident.io's fields that search by meaning reads. */
export interface RelevanceIncident {
  readonly id: string;
  readonly name: string;
  readonly summary: string | null;
}

/** A query and the ids of the incidents a person would call relevant to it (none for a negative). */
export interface Judgement {
  readonly query: string;
  readonly kind: 'paraphrase' | 'synonyms' | 'typos' | 'question' | 'names' | 'negative';
  readonly relevant: readonly string[];
}

/** The order of each topic's five queries (incident-topics.ts). */
const KINDS = ['paraphrase', 'paraphrase', 'synonyms', 'typos', 'question'] as const;

/**
 * Incidents about nothing in particular, full of the filler words questions carry ("was", "a", "at", "the", "for"):
 * a word ranking that counts those lets them outrank the record that means the question.
 */
const FILLER: readonly (readonly [string, string])[] = [
  ['Was a note for the team at the weekly review', 'There was a question about what the team was doing at the time.'],
  ['A reminder for the on-call rota', 'Who is on call at the weekend and what they should do.'],
  ['The retrospective was held at the office', 'We talked about the quarter and what was good and what was not.'],
  ['Game day exercise for the team', 'A practice run of our incident process, nothing was broken.'],
  ['Was there an update to the handbook', 'The process document was edited to add a few links.'],
  ['Test incident created by a new engineer', 'This was a test of the tooling, please ignore it.'],
  ['Tutorial incident', 'Walkthrough of how incidents work for people who are new.'],
  ['Planned maintenance window announced', 'A notice that some work was scheduled for the weekend at night.'],
];

/** The set as records and judgements: 120 incidents on 60 topics, 8 of filler, 324 queries and 20 negatives. */
export function relevanceSet(): { incidents: RelevanceIncident[]; judgements: Judgement[] } {
  const incidents: RelevanceIncident[] = [];
  const judgements: Judgement[] = [];
  const byTopic = new Map<string, string[]>();
  for (const [topic, records, queries] of TOPICS) {
    const ids = records.map(([name, summary], i) => {
      const id = `rel-${topic}-${i + 1}`;
      incidents.push({ id, name, summary });
      return id;
    });
    byTopic.set(topic, ids);
    queries.forEach((query, i) => {
      judgements.push({ query, kind: KINDS[i] ?? 'paraphrase', relevant: ids });
    });
  }
  // A named query is about the one incident of its topic that holds those names.
  for (const [topic, query] of NAMED) {
    const words = query.toLowerCase().split(/\s+/);
    const ids = (byTopic.get(topic) ?? []).filter((id) => {
      const incident = incidents.find((i) => i.id === id);
      const text = `${incident?.name} ${incident?.summary}`.toLowerCase();
      return words.filter((w) => text.includes(w)).length >= words.length / 2;
    });
    judgements.push({ query, kind: 'names', relevant: ids });
  }
  FILLER.forEach(([name, summary], i) => {
    incidents.push({ id: `rel-filler-${i + 1}`, name, summary });
  });
  for (const query of NEGATIVES) judgements.push({ query, kind: 'negative', relevant: [] });
  return { incidents, judgements };
}

/** nDCG@k with binary gains (log2 discount), and recall@k, of one ranking against its relevant ids. */
export function scoreRanking(
  ranked: readonly string[],
  relevant: readonly string[],
  k = 10,
): { ndcg: number; recall: number } {
  if (relevant.length === 0) return { ndcg: 0, recall: 0 };
  const wanted = new Set(relevant);
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    if (wanted.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.length); i++) ideal += 1 / Math.log2(i + 2);
  const found = ranked.slice(0, k).filter((id) => wanted.has(id)).length;
  return { ndcg: dcg / ideal, recall: found / relevant.length };
}
