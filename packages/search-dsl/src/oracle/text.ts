/**
 * The reference evaluator's text operators (tests only), written apart from the compiler: `like` through a
 * JavaScript regular expression, `fuzzy`/`keyword` through a tokenizer and an edit distance of its own.
 */

/** Lowercase one code point at a time, as Lucene's lowercase filter does (no context rules: İ → i). */
function lowerEach(text: string): string {
  return Array.from(text, (c) => Array.from(c.toLowerCase())[0] ?? c).join('');
}

/** ASCII letters only (the engine's case-insensitive flag on values inside untyped objects). */
function lowerAscii(text: string): string {
  return text.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
}

/**
 * `like`: `%` any run, `_` one character (code point), `\x` the literal x (a trailing `\` is itself); without an
 * unescaped `%` or `_` the pattern matches as a substring. Case-insensitive per code point, or for ASCII letters
 * only (`ascii`).
 */
export function likeMatch(pattern: string, text: string, fold: 'unicode' | 'ascii'): boolean {
  const lower = fold === 'unicode' ? lowerEach : lowerAscii;
  let source = '';
  let wild = false;
  const chars = Array.from(lower(pattern));
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\\' && i + 1 < chars.length) source += escapeRegExpChar(chars[++i]!);
    else if (c === '%') {
      source += '[^]*';
      wild = true;
    } else if (c === '_') {
      source += '.';
      wild = true;
    } else source += escapeRegExpChar(c);
  }
  if (!wild) source = `[^]*${source}[^]*`;
  return new RegExp(`^(?:${source})$`, 'su').test(lower(text));
}

function escapeRegExpChar(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}

/** The standard tokenizer + lowercase + asciifolding, for words of letters and digits (see README). */
export function analyze(text: string): string[] {
  const out: string[] = [];
  let word = '';
  for (const c of text) {
    if (/[\p{L}\p{N}\p{M}]/u.test(c)) word += c;
    else if (word) {
      out.push(word);
      word = '';
    }
  }
  if (word) out.push(word);
  return out.map((w) => w.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()).filter((w) => w !== '');
}

/** Damerau-Levenshtein (optimal string alignment) over code points. */
function distance(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  let prev2: number[] = [];
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++) {
      const same = x[i - 1] === y[j - 1];
      let best = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (same ? 0 : 1));
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) best = Math.min(best, prev2[j - 2]! + 1);
      row.push(best);
    }
    prev2 = prev;
    prev = row;
  }
  return prev[y.length]!;
}

/** `fuzziness: AUTO`: exact up to 2 characters, 1 edit up to 5, then 2. */
function allowedEdits(word: string): number {
  const n = Array.from(word).length;
  if (n <= 2) return 0;
  return n <= 5 ? 1 : 2;
}

/** Every query word is within its allowed edits of some word of the text. */
export function fuzzyMatch(query: string, text: string): boolean {
  const words = analyze(text);
  return analyze(query).every((q) => words.some((w) => distance(q, w) <= allowedEdits(q)));
}

/** Some query word is a word of the text. */
export function keywordMatch(query: string, text: string): boolean {
  const words = new Set(analyze(text));
  return analyze(query).some((q) => words.has(q));
}
