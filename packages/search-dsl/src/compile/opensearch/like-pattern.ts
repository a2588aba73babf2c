/**
 * `like` pattern → OpenSearch wildcard syntax: `%` → `*`, `_` → `?`, `\x` → literal x; `*`, `?` and `\` in the
 * pattern are literals. A pattern without `%` or `_` matches as a substring (wrapped in `*`).
 * https://opensearch.org/docs/latest/query-dsl/term/wildcard/
 */
export function likeToWildcard(pattern: string): string {
  return likeTokens(pattern)
    .map((t) => (t.kind === 'any' ? '*' : t.kind === 'one' ? '?' : escapeLiteral(t.char)))
    .join('');
}

function escapeLiteral(c: string): string {
  return c === '*' || c === '?' || c === '\\' ? `\\${c}` : c;
}

/** What a `like` pattern costs the engine depends on (see validate/search-cost.ts). */
export interface LikeShape {
  /** `%` and `_` after the substring rule (a pattern without either is `%text%`). */
  readonly wildcards: number;
  /** Literal characters in all. */
  readonly literals: number;
  /** The longest run of literal characters, counting the start or end of the value as one where the pattern is anchored there. */
  readonly longestLiteralRun: number;
}

export function likeShape(pattern: string): LikeShape {
  const tokens = likeTokens(pattern);
  let wildcards = 0;
  let literals = 0;
  let run = tokens[0]?.kind === 'char' ? 1 : 0;
  let longest = 0;
  for (const token of tokens) {
    if (token.kind === 'char') {
      literals++;
      run++;
    } else {
      wildcards++;
      longest = Math.max(longest, run);
      run = 0;
    }
  }
  if (tokens.at(-1)?.kind === 'char') run++;
  return { wildcards, literals, longestLiteralRun: Math.max(longest, run) };
}

type LikeToken = { readonly kind: 'any' } | { readonly kind: 'one' } | { readonly kind: 'char'; readonly char: string };

/** The pattern as tokens (code points), with the substring rule applied. */
function likeTokens(pattern: string): LikeToken[] {
  const tokens: LikeToken[] = [];
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\\') {
      tokens.push({ kind: 'char', char: chars[i + 1] ?? '\\' });
      if (i + 1 < chars.length) i++;
    } else if (c === '%') tokens.push({ kind: 'any' });
    else if (c === '_') tokens.push({ kind: 'one' });
    else tokens.push({ kind: 'char', char: c });
  }
  return tokens.some((t) => t.kind !== 'char') ? tokens : [{ kind: 'any' }, ...tokens, { kind: 'any' }];
}

/**
 * Lowercase per code point, as Lucene's `lowercase` filter does (Java `Character.toLowerCase`): no context rules
 * (Σ → σ even at a word end), and İ → i.
 */
export function lowerCodePoints(text: string): string {
  let out = '';
  for (const c of text) out += [...c.toLowerCase()][0] ?? c;
  return out;
}

/**
 * `like` pattern → Lucene regular expression (flags NONE) over the lowercased `wildcard` sub-field. A regexp,
 * not a wildcard query, because the `wildcard` field type of OpenSearch 2.19 mishandles `\` escapes in wildcard
 * queries (`a\*b\?c` does not match `a*b?c`), while its regexp queries honour them. Never fully literal (the
 * substring rule adds `.*`), which also avoids that field's failure on literal-only regexps.
 * https://opensearch.org/docs/latest/query-dsl/term/regexp/
 */
export function likeToRegexp(pattern: string): string {
  return likeTokens(lowerCodePoints(pattern))
    .map((t) => (t.kind === 'any' ? '.*' : t.kind === 'one' ? '.' : escapeRegexp(t.char)))
    .join('');
}

function escapeRegexp(c: string): string {
  return /^[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e\s]$/.test(c) ? `\\${c}` : c;
}
