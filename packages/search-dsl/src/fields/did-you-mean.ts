/** Levenshtein distance with the optimal-string-alignment transposition rule. */
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

/** The closest candidates to `input` (at most `max`), nearest first. */
export function nearest(input: string, candidates: readonly string[], max = 3): string[] {
  const lower = input.toLowerCase();
  const limit = Math.max(2, Math.floor(input.length / 2));
  return candidates
    .map((c) => ({ c, d: editDistance(lower, c.toLowerCase()) }))
    .filter(({ d, c }) => d <= limit || c.toLowerCase().includes(lower) || lower.includes(c.toLowerCase()))
    .sort((p, q) => p.d - q.d || (p.c < q.c ? -1 : 1))
    .slice(0, max)
    .map(({ c }) => c);
}

/** "unknown field 'nmae'. Did you mean 'name'? Valid fields: id, name, ..." */
export function unknownFieldMessage(what: string, input: string, candidates: readonly string[]): string {
  const close = nearest(input, candidates);
  const hint = close.length > 0 ? ` Did you mean ${close.map((c) => `'${c}'`).join(' or ')}?` : '';
  const shown = candidates.slice(0, 50).join(', ') + (candidates.length > 50 ? ', ...' : '');
  return `unknown ${what} '${input}'.${hint} Valid fields: ${shown || '(none)'}`;
}
