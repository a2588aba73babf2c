/**
 * Levenshtein distance with the optimal-string-alignment transposition rule, over code points (an emoji or an
 * accented letter is one character). The one implementation: search-dsl's hints use it too.
 */
export function editDistance(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  const d: number[][] = Array.from({ length: x.length + 1 }, (_, i) => [i, ...Array<number>(y.length).fill(0)]);
  for (let j = 1; j <= y.length; j++) d[0]![j] = j;
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[x.length]![y.length]!;
}

/**
 * The closest candidates to `input` (at most `max`), nearest first, for "did you mean" hints: within an edit distance
 * of half its length (at least 2), or one holding the other (`stat` for `status`, `customer_id` for `id`), case
 * ignored. The one implementation: the connectors' params and search-dsl's fields and SQL columns use it.
 */
export function nearest(input: string, candidates: readonly string[], max = 3): string[] {
  const lower = input.toLowerCase();
  const limit = Math.max(2, Math.floor(input.length / 2));
  return candidates
    .map((c) => ({ c, lc: c.toLowerCase() }))
    .map(({ c, lc }) => ({ c, lc, d: editDistance(lower, lc) }))
    .filter(({ d, lc }) => d <= limit || lc.includes(lower) || lower.includes(lc))
    .sort((p, q) => p.d - q.d || (p.c < q.c ? -1 : p.c > q.c ? 1 : 0))
    .slice(0, max)
    .map(({ c }) => c);
}

export function didYouMean(input: string, candidates: readonly string[]): string {
  const close = nearest(input, candidates);
  return close.length > 0 ? ` Did you mean ${close.map((c) => `'${c}'`).join(' or ')}?` : '';
}
