/** Levenshtein distance with the optimal-string-alignment transposition rule. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
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
