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

/** The closest candidates to `input` (at most 3), for "did you mean" hints. */
export function nearest(input: string, candidates: readonly string[], max = 3): string[] {
  const limit = Math.max(2, Math.floor(input.length / 2));
  return candidates
    .map((c) => ({ c, d: editDistance(input.toLowerCase(), c.toLowerCase()) }))
    .filter(({ d, c }) => d <= limit || c.toLowerCase().includes(input.toLowerCase()))
    .sort((x, y) => x.d - y.d || x.c.localeCompare(y.c))
    .slice(0, max)
    .map(({ c }) => c);
}

export function didYouMean(input: string, candidates: readonly string[]): string {
  const close = nearest(input, candidates);
  return close.length > 0 ? ` Did you mean ${close.map((c) => `'${c}'`).join(' or ')}?` : '';
}
