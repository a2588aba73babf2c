/**
 * Word handling for `fuzzy` and `keyword`. The index analyses text with the standard tokenizer, `lowercase` and
 * `asciifolding`; this is the part of that analysis the validator and the reference evaluator need. It agrees with
 * the index on words of letters and digits separated by spaces or punctuation such as `,;!?()/-`, with accents
 * that decompose (é, ñ, ü). Where they differ (`a.b` is one token for the standard tokenizer, `ß` folds to `ss`),
 * the engine's analysis is the definition; see README.
 */
export function hasWord(text: string): boolean {
  return /[\p{L}\p{N}]/u.test(text);
}

export function foldWord(word: string): string {
  return word
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

export function words(text: string): string[] {
  return text
    .split(/[^\p{L}\p{N}\p{M}]+/u)
    .filter((w) => w.length > 0)
    .map(foldWord)
    .filter((w) => w.length > 0);
}
