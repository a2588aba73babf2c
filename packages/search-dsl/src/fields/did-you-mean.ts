import { editDistance } from '@conduit/connectors';

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
