import { nearest } from '@conduit/connectors';

/** "unknown field 'nmae'. Did you mean 'name'? Valid fields: id, name, ..." */
export function unknownFieldMessage(what: string, input: string, candidates: readonly string[]): string {
  const close = nearest(input, candidates);
  const hint = close.length > 0 ? ` Did you mean ${close.map((c) => `'${c}'`).join(' or ')}?` : '';
  const shown = candidates.slice(0, 50).join(', ') + (candidates.length > 50 ? ', ...' : '');
  return `unknown ${what} '${input}'.${hint} Valid fields: ${shown || '(none)'}`;
}
