/**
 * Where values sit in JSON text held as UTF-8 bytes, found without building them: a search answer's records go
 * into our own answer as the engine wrote them (see search-page-json.ts), so they are never decoded, parsed,
 * projected, serialized and encoded again.
 *
 * Readers walk the text once: `walkObject` and `walkArray` hand each member or element to a callback, which
 * returns where the value ends, either by skipping it (`valueEnd`) or by walking into it. Every byte is looked at
 * in one plain loop (about 1 ns a byte here, against 5 for JSON.parse and the rest of the way back to JSON text);
 * calling `Buffer#indexOf` per string was slower, for its cost per call on short strings.
 *
 * The text is taken to be well-formed JSON (the engine's); what does not look like it throws. No library does
 * this: the JSON tokenizers on npm (jsonc-parser, @streamparser/json) read strings, not bytes, token by token.
 */

/** A value's bytes: `[start, end)`. */
export interface JsonSpan {
  readonly start: number;
  readonly end: number;
}

/** Gets a member's key (`[keyStart, keyEnd)`, quotes included) and where its value starts; returns where it ends. */
export type MemberReader = (keyStart: number, keyEnd: number, valueStart: number) => number;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const DOT = 0x2e;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

export function skipWhitespace(bytes: Buffer, at: number): number {
  let i = at;
  for (let c = bytes[i]; c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = bytes[++i]);
  return i;
}

/** The end of the value starting at `start` (no whitespace before it). */
export function valueEnd(bytes: Buffer, start: number): number {
  const first = bytes[start];
  if (first === QUOTE) return stringEnd(bytes, start);
  if (first === OPEN_OBJECT || first === OPEN_ARRAY) return containerEnd(bytes, start);
  // A number, true, false or null: up to the next delimiter.
  let i = start;
  for (let c = bytes[i]; c !== undefined && !isDelimiter(c); c = bytes[++i]);
  if (i === start) throw malformed(bytes, start);
  return i;
}

/** Reads the object starting at `start` member by member (see MemberReader); returns the object's end. */
export function walkObject(bytes: Buffer, start: number, member: MemberReader): number {
  if (bytes[start] !== OPEN_OBJECT) throw malformed(bytes, start);
  let i = skipWhitespace(bytes, start + 1);
  if (bytes[i] === CLOSE_OBJECT) return i + 1;
  for (;;) {
    if (bytes[i] !== QUOTE) throw malformed(bytes, i);
    const keyEnd = stringEnd(bytes, i);
    const colon = skipWhitespace(bytes, keyEnd);
    if (bytes[colon] !== COLON) throw malformed(bytes, colon);
    i = skipWhitespace(bytes, member(i, keyEnd, skipWhitespace(bytes, colon + 1)));
    if (bytes[i] === CLOSE_OBJECT) return i + 1;
    if (bytes[i] !== COMMA) throw malformed(bytes, i);
    i = skipWhitespace(bytes, i + 1);
  }
}

/** Reads the array starting at `start` element by element (`element` returns where each ends); returns its end. */
export function walkArray(bytes: Buffer, start: number, element: (valueStart: number) => number): number {
  if (bytes[start] !== OPEN_ARRAY) throw malformed(bytes, start);
  let i = skipWhitespace(bytes, start + 1);
  if (bytes[i] === CLOSE_ARRAY) return i + 1;
  for (;;) {
    i = skipWhitespace(bytes, element(i));
    if (bytes[i] === CLOSE_ARRAY) return i + 1;
    if (bytes[i] !== COMMA) throw malformed(bytes, i);
    i = skipWhitespace(bytes, i + 1);
  }
}

/**
 * The end of the object starting at `start` when every one of its keys is plain (not empty, no `.`, no escape), or
 * -1 when one is not. One loop without a callback per member: a record of a search page is mostly copied whole, and
 * walking it member by member (walkObject) made searchPageJson 1.3x slower on a page of 100 Orb invoices (63 KB).
 */
export function plainKeysObjectEnd(bytes: Buffer, start: number): number {
  if (bytes[start] !== OPEN_OBJECT) throw malformed(bytes, start);
  let i = skipWhitespace(bytes, start + 1);
  if (bytes[i] === CLOSE_OBJECT) return i + 1;
  for (;;) {
    if (bytes[i] !== QUOTE) throw malformed(bytes, i);
    // The empty key is not plain either: no field has that name.
    if (bytes[i + 1] === QUOTE) return -1;
    for (let c = bytes[++i]; c !== QUOTE; c = bytes[++i]) {
      if (c === DOT || c === BACKSLASH) return -1;
      if (c === undefined) throw malformed(bytes, start);
    }
    const colon = skipWhitespace(bytes, i + 1);
    if (bytes[colon] !== COLON) throw malformed(bytes, colon);
    i = skipWhitespace(bytes, valueEnd(bytes, skipWhitespace(bytes, colon + 1)));
    if (bytes[i] === CLOSE_OBJECT) return i + 1;
    if (bytes[i] !== COMMA) throw malformed(bytes, i);
    i = skipWhitespace(bytes, i + 1);
  }
}

/** Whether the key at `[keyStart, keyEnd)` is `name` as written, without escapes (ASCII names only). */
export function keyEquals(bytes: Buffer, keyStart: number, keyEnd: number, name: string): boolean {
  if (keyEnd - keyStart !== name.length + 2) return false;
  for (let i = 0; i < name.length; i++) if (bytes[keyStart + 1 + i] !== name.charCodeAt(i)) return false;
  return true;
}

/** The key at `[keyStart, keyEnd)` as a string. */
export function keyText(bytes: Buffer, keyStart: number, keyEnd: number): string {
  return parseSpan(bytes, { start: keyStart, end: keyEnd }) as string;
}

/** Parses one span (a small part of the text: a total, sort values, one record). */
export function parseSpan(bytes: Buffer, span: JsonSpan): unknown {
  return JSON.parse(bytes.toString('utf8', span.start, span.end));
}

function stringEnd(bytes: Buffer, start: number): number {
  let i = start + 1;
  for (;;) {
    const c = bytes[i++];
    if (c === QUOTE) return i;
    if (c === BACKSLASH) i++;
    else if (c === undefined) throw malformed(bytes, start);
  }
}

function containerEnd(bytes: Buffer, start: number): number {
  let depth = 0;
  let i = start;
  for (;;) {
    const c = bytes[i];
    if (c === QUOTE) i = stringEnd(bytes, i);
    else {
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
      else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        if (--depth === 0) return i + 1;
      } else if (c === undefined) throw malformed(bytes, start);
      i++;
    }
  }
}

function isDelimiter(c: number): boolean {
  return c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function malformed(bytes: Buffer, at: number): Error {
  return new Error(`malformed JSON at byte ${at} of ${bytes.length}`);
}
