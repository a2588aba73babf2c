import { type FieldMap, type FieldSpec, notNull, type ScalarType, t } from './field-spec.ts';

/**
 * A field map written as a TypeScript-like list, so that a catalog states each field once and fields of one type
 * share a line:
 *
 * ```ts
 * fields`
 *   id!, name, description: string       // `!`: not null (fields are nullable otherwise)
 *   created_at, updated_at: datetime
 *   status: 'firing' | 'resolved'         // an enum of strings
 *   tags: string[]                        // an array of strings; `array`: items not stated
 *   creator: object                       // an object whose fields are not stated
 *   address: { line1, city: string; country_code: string }   // nested fields, `;` or a new line between entries
 *   amount: ${amount()}                   // any FieldSpec, interpolated
 * `
 * ```
 *
 * Types: the scalars of FieldSpec (string, datetime, integer, number, decimal, boolean), `object`, `array`, a `{ … }`
 * block, a union of quoted strings, or an interpolated FieldSpec; `[]` after any of them makes an array of it. A name
 * list may run over several lines when a line ends with a comma. Names are words with dots or dashes (`event.type`)
 * or quoted. `//` and `/* … *\/` are comments. Field order is the order written. A malformed list throws when the
 * module loads, naming the offending token.
 */
export function fields(strings: TemplateStringsArray, ...specs: readonly FieldSpec[]): FieldMap {
  return new Parser(tokenize(strings.raw, specs)).map(null);
}

type Token =
  | { readonly kind: 'name'; readonly text: string }
  | { readonly kind: 'quoted'; readonly text: string }
  | { readonly kind: 'spec'; readonly spec: FieldSpec }
  | { readonly kind: 'punct'; readonly text: '!' | ',' | ':' | ';' | '{' | '}' | '[]' | '|' | '\n' };

const SCALARS: Readonly<Record<ScalarType, () => FieldSpec>> = {
  string: () => t.string(),
  datetime: () => t.datetime(),
  integer: () => t.integer(),
  number: () => t.number(),
  decimal: () => t.decimal(),
  boolean: () => t.boolean(),
};

const TOKEN = /[^\S\n]*(?:(\/\/[^\n]*|\/\*[\s\S]*?\*\/)|(\n)|([A-Za-z_$][\w.$-]*)|'([^'\n]*)'|(\[\]|[!,:;{}|]))/y;

function tokenize(chunks: readonly string[], specs: readonly FieldSpec[]): Token[] {
  const tokens: Token[] = [];
  chunks.forEach((chunk, index) => {
    TOKEN.lastIndex = 0;
    while (TOKEN.lastIndex < chunk.length) {
      const at = TOKEN.lastIndex;
      const match = TOKEN.exec(chunk);
      if (!match) {
        const rest = chunk.slice(at).trim();
        if (rest === '') break;
        throw new Error(`fields: unexpected ${JSON.stringify(rest.slice(0, 20))}`);
      }
      const [, comment, newline, name, quoted, punct] = match;
      if (comment !== undefined) continue;
      if (newline !== undefined) tokens.push({ kind: 'punct', text: '\n' });
      else if (name !== undefined) tokens.push({ kind: 'name', text: name });
      else if (quoted !== undefined) tokens.push({ kind: 'quoted', text: quoted });
      else tokens.push({ kind: 'punct', text: punct as '!' });
    }
    const spec = specs[index];
    if (spec !== undefined) tokens.push({ kind: 'spec', spec });
  });
  return tokens;
}

function describe(token: Token | undefined): string {
  if (!token) return 'the end';
  if (token.kind === 'spec') return 'an interpolated spec';
  return JSON.stringify(token.text);
}

class Parser {
  #at = 0;
  readonly tokens: readonly Token[];
  constructor(tokens: readonly Token[]) {
    this.tokens = tokens;
  }

  /** Entries up to `close` (or the end), separated by new lines or `;`. */
  map(close: '}' | null): FieldMap {
    const map: Record<string, FieldSpec> = {};
    for (;;) {
      while (this.#isPunct('\n') || this.#isPunct(';')) this.#at++;
      const next = this.tokens[this.#at];
      if (close === null ? next === undefined : this.#isPunct(close)) return map;
      for (const [name, spec] of this.#entry()) {
        if (Object.hasOwn(map, name)) throw new Error(`fields: ${name} is declared twice`);
        map[name] = spec;
      }
      const after = this.tokens[this.#at];
      if (!(after === undefined || this.#isPunct('\n') || this.#isPunct(';') || this.#isPunct('}'))) {
        throw new Error(`fields: expected a new line or ; after a field, found ${describe(after)}`);
      }
    }
  }

  /** `a!, b, c: type`: the names, each with its own nullability, share one type. */
  #entry(): [string, FieldSpec][] {
    const names: { name: string; required: boolean }[] = [];
    for (;;) {
      const token = this.tokens[this.#at++];
      if (token?.kind !== 'name' && token?.kind !== 'quoted') {
        throw new Error(`fields: expected a field name, found ${describe(token)}`);
      }
      const required = this.#isPunct('!');
      if (required) this.#at++;
      names.push({ name: token.text, required });
      if (!this.#isPunct(',')) break;
      this.#at++;
      while (this.#isPunct('\n')) this.#at++;
    }
    this.#expect(':');
    const type = this.#type();
    return names.map(({ name, required }) => [name, required ? notNull(type) : type]);
  }

  #type(): FieldSpec {
    let spec = this.#base();
    while (this.#isPunct('[]')) {
      this.#at++;
      spec = t.array(spec);
    }
    return spec;
  }

  #base(): FieldSpec {
    const token = this.tokens[this.#at++];
    if (token?.kind === 'spec') return token.spec;
    if (token?.kind === 'quoted') {
      const values = [token.text];
      while (this.#isPunct('|')) {
        this.#at++;
        const value = this.tokens[this.#at++];
        if (value?.kind !== 'quoted') throw new Error(`fields: expected a quoted enum value, found ${describe(value)}`);
        values.push(value.text);
      }
      return t.string({ enum: values });
    }
    if (token?.kind === 'punct' && token.text === '{') {
      const nested = this.map('}');
      this.#expect('}');
      return t.object(nested);
    }
    if (token?.kind === 'name') {
      if (token.text === 'object') return t.object();
      if (token.text === 'array') return t.array();
      if (Object.hasOwn(SCALARS, token.text)) return SCALARS[token.text as ScalarType]();
    }
    throw new Error(`fields: expected a type, found ${describe(token)}`);
  }

  #isPunct(text: string): boolean {
    const token = this.tokens[this.#at];
    return token?.kind === 'punct' && token.text === text;
  }

  #expect(text: string): void {
    if (!this.#isPunct(text))
      throw new Error(`fields: expected ${JSON.stringify(text)}, found ${describe(this.tokens[this.#at])}`);
    this.#at++;
  }
}
