import type { Statement } from 'pgsql-ast-parser';
import { SEARCH_LIMITS } from '../limits.ts';
import { positionAt, SqlQueryError } from './sql-error.ts';

/**
 * Limits of a SQL text checked before it reaches the parser. pgsql-ast-parser is an Earley parser (nearley): its
 * time and memory grow faster than the text, so a long list of anything (IN values, SELECT columns, `+1`, CASE
 * arms, nested parentheses) ran for seconds or ran the process out of memory (docs/sql.md, "Limits"). These bound
 * every text the parser sees to a size it parses in a few tens of milliseconds.
 */
export const SQL_TEXT_LIMITS = Object.freeze({
  /** Characters of the whole text (as the search language's 64 KiB query). */
  maxLength: 64 * 1024,
  /** Tokens the parser sees (words, literals, operators, punctuation), IN lists of literals counting two values. */
  maxTokens: 160,
  /** Parentheses open at once (the search language's nesting limit). */
  maxNesting: SEARCH_LIMITS.maxDepth,
  /** Values of one IN list (the search language's `in`). */
  maxInValues: SEARCH_LIMITS.maxInValues,
});

/** A literal of an IN list the parser does not see: its kind and where it is in the text. */
type ListValue = { readonly kind: 'integer' | 'numeric' | 'string'; readonly start: number; readonly end: number };

/** The text as the parser sees it, and the IN lists taken out of it (keyed by the offset of their first value). */
type Prescanned = {
  readonly text: string;
  readonly lists: ReadonlyMap<number, readonly ListValue[]>;
};

type Token = {
  readonly kind: 'word' | 'number' | 'string' | 'quoted' | 'punct';
  readonly start: number;
  readonly end: number;
};

const NUMBER = /^-?\d+(\.\d+)?$/;

/**
 * Checks the limits in one pass over the text (linear, no backtracking) and takes the values of long IN lists of
 * plain literals out of the parser's sight: `x IN (1, 2, 3, ..., 1024)` reaches it as `x IN (1, 2 ...spaces...)`,
 * the same length, so every position the parser reports is still the caller's; `restoreLists` puts the values
 * back into its tree. A 1,024-value list then costs the parser what a two-value list does.
 *
 * @throws SqlQueryError `invalid_sql` naming the limit, at the position where it is passed.
 */
export function prescanSql(text: string): Prescanned {
  const fail = (offset: number, message: string): never => {
    throw new SqlQueryError('invalid_sql', [{ ...positionAt(text, offset), message }]);
  };
  if (text.length > SQL_TEXT_LIMITS.maxLength) {
    fail(SQL_TEXT_LIMITS.maxLength, `a query has at most ${SQL_TEXT_LIMITS.maxLength} characters`);
  }
  const tokens = tokenize(text);
  const lists = new Map<number, ListValue[]>();
  const blanks: [number, number][] = [];
  let counted = 0;
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const list = isIn(text, tokens, i) ? inList(text, tokens, i + 2) : undefined;
    if (list) {
      if (list.values.length > SQL_TEXT_LIMITS.maxInValues) {
        fail(
          list.values[SQL_TEXT_LIMITS.maxInValues]!.start,
          `an IN list has at most ${SQL_TEXT_LIMITS.maxInValues} values; this one has ${list.values.length}`,
        );
      }
      if (list.values.length > 2) {
        lists.set(list.values[0]!.start, list.values);
        blanks.push([list.values[1]!.end, tokens[list.close]!.start]);
      }
      // IN, (, two values, a comma and ) as the parser sees them.
      counted += 2 + Math.min(3, 2 * list.values.length - 1) + 1;
      i = list.close;
      continue;
    }
    counted++;
    if (counted > SQL_TEXT_LIMITS.maxTokens) {
      fail(token.start, `a query has at most ${SQL_TEXT_LIMITS.maxTokens} tokens (an IN list of values counts as two)`);
    }
    if (token.kind === 'punct' && text[token.start] === '(') {
      if (++depth > SQL_TEXT_LIMITS.maxNesting) {
        fail(token.start, `parentheses nest at most ${SQL_TEXT_LIMITS.maxNesting} deep`);
      }
    } else if (token.kind === 'punct' && text[token.start] === ')') depth--;
  }
  if (counted > SQL_TEXT_LIMITS.maxTokens) {
    fail(text.length, `a query has at most ${SQL_TEXT_LIMITS.maxTokens} tokens (an IN list of values counts as two)`);
  }
  return { text: blanks.length === 0 ? text : blank(text, blanks), lists };
}

/**
 * Puts the IN values `prescanSql` took out back into the parsed statements: each list whose first value is at a
 * recorded offset gets every value, as the parser would have read them (numbers keep their text through
 * `_location`, see sql-literals.ts).
 *
 * @throws SqlQueryError `invalid_sql` when a list the scan took out is not an IN list of the parsed query.
 */
export function restoreLists(statements: Statement[], scanned: Prescanned, text: string): void {
  if (scanned.lists.size === 0) return;
  const restored = new Set<number>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const record = node as { type?: unknown; expressions?: { _location?: { start: number } }[] };
    if (record.type === 'list' && Array.isArray(record.expressions)) {
      const start = record.expressions[0]?._location?.start;
      const values = start === undefined ? undefined : scanned.lists.get(start);
      if (values && record.expressions.length === 2 && !restored.has(start!)) {
        record.expressions = values.map((v) => literalNode(v, text));
        restored.add(start!);
        return;
      }
    }
    for (const value of Object.values(node)) visit(value);
  };
  visit(statements);
  for (const start of scanned.lists.keys()) {
    if (!restored.has(start)) {
      throw new SqlQueryError('invalid_sql', [
        { ...positionAt(text, start), message: 'IN takes a list of values here' },
      ]);
    }
  }
}

function literalNode(value: ListValue, text: string) {
  const raw = text.slice(value.start, value.end);
  const _location = { start: value.start, end: value.end };
  if (value.kind === 'string')
    return { type: 'string' as const, value: raw.slice(1, -1).replaceAll("''", "'"), _location };
  return { type: value.kind, value: Number(raw), _location };
}

/** `IN (` at token i (not a quoted identifier named in). */
function isIn(text: string, tokens: readonly Token[], i: number): boolean {
  const token = tokens[i]!;
  const next = tokens[i + 1];
  return (
    token.kind === 'word' &&
    token.end - token.start === 2 &&
    text.slice(token.start, token.end).toUpperCase() === 'IN' &&
    next?.kind === 'punct' &&
    text[next.start] === '('
  );
}

/** A list of plain literals from token `from` to its `)`: `1, -2, 3.5` or `'a', 'b'`; undefined for anything else. */
function inList(text: string, tokens: readonly Token[], from: number) {
  const values: ListValue[] = [];
  for (let i = from; i < tokens.length; i += 2) {
    const token = tokens[i]!;
    const raw = text.slice(token.start, token.end);
    if (token.kind === 'string' && raw.startsWith("'"))
      values.push({ kind: 'string', start: token.start, end: token.end });
    else if (token.kind === 'number' && NUMBER.test(raw)) {
      values.push({ kind: raw.includes('.') ? 'numeric' : 'integer', start: token.start, end: token.end });
    } else return undefined;
    const after = tokens[i + 1];
    if (after?.kind !== 'punct') return undefined;
    if (text[after.start] === ')') return { values, close: i + 1 };
    if (text[after.start] !== ',') return undefined;
  }
  return undefined;
}

/** The text with each range replaced by spaces (line breaks kept, so lines and columns stay the caller's). */
function blank(text: string, ranges: readonly [number, number][]): string {
  let out = '';
  let at = 0;
  for (const [start, end] of ranges) {
    out += text.slice(at, start) + text.slice(start, end).replace(/[^\n]/g, ' ');
    at = end;
  }
  return out + text.slice(at);
}

/**
 * The text's tokens as PostgreSQL's lexer splits them, closely enough to count them and find IN lists: comments
 * and spaces are skipped; strings (`'...'` with `''`), quoted identifiers (`"..."`) and dollar quotes are one token
 * each; a number with a leading minus sign right after an operator or `(` / `,` is one token (as `-2` in a list).
 */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v') {
      i++;
    } else if (c === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? n : end + 1;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      for (;;) {
        const end = text.indexOf(c, j);
        // Unterminated: the rest is one token, and the parser says where the text stops being SQL.
        if (end < 0) {
          j = n;
          break;
        }
        if (text[end + 1] === c) j = end + 2;
        else {
          j = end + 1;
          break;
        }
      }
      tokens.push({ kind: c === "'" ? 'string' : 'quoted', start: i, end: j });
      i = j;
    } else if (c === '$') {
      const tag = /^\$[A-Za-z_]?[A-Za-z0-9_]*\$/.exec(text.slice(i, i + 66))?.[0];
      const end = tag ? text.indexOf(tag, i + tag.length) : -1;
      const j = tag && end >= 0 ? end + tag.length : i + 1;
      tokens.push({ kind: tag ? 'string' : 'punct', start: i, end: j });
      i = j;
    } else if (isDigit(c) || (c === '.' && isDigit(text[i + 1])) || (c === '-' && signStarts(text, tokens, i))) {
      let j = i + 1;
      while (j < n && (isDigit(text[j]) || text[j] === '.' || isWord(text[j]))) j++;
      tokens.push({ kind: 'number', start: i, end: j });
      i = j;
    } else if (isWord(c)) {
      let j = i + 1;
      while (j < n && (isWord(text[j]) || isDigit(text[j]) || text[j] === '$')) j++;
      tokens.push({ kind: 'word', start: i, end: j });
      i = j;
    } else {
      tokens.push({ kind: 'punct', start: i, end: i + 1 });
      i++;
    }
  }
  return tokens;
}

/** A `-` that is a number's sign: followed by a digit, after `(`, `,` or an operator (not after a value). */
function signStarts(text: string, tokens: readonly Token[], i: number): boolean {
  if (!isDigit(text[i + 1])) return false;
  const before = tokens[tokens.length - 1];
  return before?.kind === 'punct' && (text[before.start] === '(' || text[before.start] === ',');
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

function isWord(c: string | undefined): boolean {
  return c !== undefined && (c === '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c > '\u007f');
}
