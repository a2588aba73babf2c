import { z } from 'zod';

/**
 * BERT's WordPiece tokenizer as the model's `tokenizer.json` describes it (Hugging Face tokenizers format):
 * BertNormalizer (clean text, spaces around CJK characters, lowercase, strip accents), BertPreTokenizer (split on
 * whitespace and punctuation), greedy longest-match WordPiece with `##` continuations, then `[CLS] … [SEP]`.
 * https://huggingface.co/docs/tokenizers/api/normalizers#tokenizers.normalizers.BertNormalizer
 *
 * @example
 *   const tokenizer = createWordPieceTokenizer(JSON.parse(readFileSync('tokenizer.json', 'utf8')), 256);
 *   tokenizer.encode('Checkout outage'); // [101, 4638, 2041, 5665, 102]
 */
export interface WordPieceTokenizer {
  /** Token ids with `[CLS]` first and `[SEP]` last, at most `maxTokens` in all. */
  encode(text: string): number[];
}

const TokenizerJson = z.object({
  normalizer: z.object({ lowercase: z.boolean(), strip_accents: z.boolean().nullable().optional() }).passthrough(),
  model: z.object({
    type: z.literal('WordPiece'),
    unk_token: z.string(),
    continuing_subword_prefix: z.string(),
    max_input_chars_per_word: z.number().int().positive(),
    vocab: z.record(z.string(), z.number().int()),
  }),
});

const COMBINING_MARK = /\p{Mn}/gu;
const CONTROL = /[\p{Cc}\p{Cf}]/u;
const PUNCTUATION = /\p{P}/u;

function isPunctuation(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  // BERT counts every non-alphanumeric printable ASCII character as punctuation ("$", "^", "`"), not just \p{P}.
  if (
    (code >= 33 && code <= 47) ||
    (code >= 58 && code <= 64) ||
    (code >= 91 && code <= 96) ||
    (code >= 123 && code <= 126)
  ) {
    return true;
  }
  return PUNCTUATION.test(char);
}

function isChinese(code: number): boolean {
  return (
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x20000 && code <= 0x2a6df) ||
    (code >= 0x2a700 && code <= 0x2b73f) ||
    (code >= 0x2b740 && code <= 0x2b81f) ||
    (code >= 0x2b820 && code <= 0x2ceaf) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0x2f800 && code <= 0x2fa1f)
  );
}

function normalize(text: string, lowercase: boolean, stripAccents: boolean): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code === 0 || code === 0xfffd) continue;
    if (/\s/u.test(char)) out += ' ';
    else if (CONTROL.test(char)) continue;
    else if (isChinese(code)) out += ` ${char} `;
    else out += char;
  }
  if (lowercase) out = out.toLowerCase();
  if (stripAccents) out = out.normalize('NFD').replace(COMBINING_MARK, '');
  return out;
}

function preTokenize(text: string): string[] {
  const words: string[] = [];
  let current = '';
  for (const char of text) {
    if (char === ' ') {
      if (current) words.push(current);
      current = '';
    } else if (isPunctuation(char)) {
      if (current) words.push(current);
      words.push(char);
      current = '';
    } else {
      current += char;
    }
  }
  if (current) words.push(current);
  return words;
}

/** Parses a `tokenizer.json` (unknown input, checked) into a tokenizer cutting at `maxTokens`. */
export function createWordPieceTokenizer(json: unknown, maxTokens: number): WordPieceTokenizer {
  const spec = TokenizerJson.parse(json);
  const vocab = new Map(Object.entries(spec.model.vocab));
  const id = (token: string): number => {
    const found = vocab.get(token);
    if (found === undefined) throw new Error(`the tokenizer's vocabulary has no ${token}`);
    return found;
  };
  const cls = id('[CLS]');
  const sep = id('[SEP]');
  const unk = id(spec.model.unk_token);
  const prefix = spec.model.continuing_subword_prefix;
  const maxChars = spec.model.max_input_chars_per_word;
  const lowercase = spec.normalizer.lowercase;
  // BertNormalizer strips accents when `strip_accents` is unset and lowercasing is on.
  const stripAccents = spec.normalizer.strip_accents ?? lowercase;

  const wordPiece = (word: string, out: number[]): void => {
    const chars = Array.from(word);
    if (chars.length > maxChars) {
      out.push(unk);
      return;
    }
    const pieces: number[] = [];
    let start = 0;
    while (start < chars.length) {
      let end = chars.length;
      let piece: number | undefined;
      while (start < end) {
        const sub = (start > 0 ? prefix : '') + chars.slice(start, end).join('');
        piece = vocab.get(sub);
        if (piece !== undefined) break;
        end -= 1;
      }
      if (piece === undefined) {
        out.push(unk);
        return;
      }
      pieces.push(piece);
      start = end;
    }
    out.push(...pieces);
  };

  return {
    encode(text) {
      const ids: number[] = [];
      for (const word of preTokenize(normalize(text, lowercase, stripAccents))) {
        wordPiece(word, ids);
        if (ids.length >= maxTokens - 2) break;
      }
      return [cls, ...ids.slice(0, maxTokens - 2), sep];
    },
  };
}
