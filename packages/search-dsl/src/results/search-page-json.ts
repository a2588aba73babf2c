import {
  type JsonSpan,
  keyEquals,
  keyText,
  parseSpan,
  plainKeysObjectEnd,
  skipWhitespace,
  valueEnd,
  walkArray,
  walkObject,
} from '@conduit/json-spans';
import type { PageContext } from '../compile/opensearch/compile-search.ts';
import {
  cursorAfter,
  EngineSortValues,
  EngineTook,
  EngineTotal,
  readSearchPage,
  type SearchPage,
  totalOf,
} from './read-search-page.ts';

/** What the caller adds to `meta` (the API adds `synced_at`). */
type ExtraMeta = Readonly<Record<string, unknown>>;

const OPEN_DATA = Buffer.from('{"data":[');
const OPEN_META = Buffer.from('],"meta":');
const OPEN_RECORD = Buffer.from('{');
const CLOSE = Buffer.from('}');
const COMMA = Buffer.from(',');
const EMPTY_RECORD = Buffer.from('{}');
const OPEN_BRACE = 0x7b;
const DOT = 0x2e;
const BACKSLASH = 0x5c;

/** A page as the JSON body of the `search` action's answer, `meta` extended by `extra`. */
export function searchPageBody(page: SearchPage, extra: ExtraMeta = {}): Buffer<ArrayBuffer> {
  return Buffer.from(JSON.stringify({ data: page.data, meta: { ...page.meta, ...extra } }));
}

/**
 * Stage 4 for the HTTP answer: an engine `_search` answer, as bytes, into the `search` action's JSON body. The
 * same page as `readSearchPage`, written without building it: each record is copied from the engine's bytes.
 *
 * That holds when the engine's own source filtering (`_source.includes` of `_record.<field>`) already gives what
 * projection would: when every field is a top-level key. Members the record still has beyond them (a sort-only
 * key, a key such as `a.b` that a field `a` includes) are dropped member by member, still as bytes. A dotted
 * field is nested by projection (`{"a":{"b":…}}` from a record's literal `a.b` key) and aggregations are read
 * from the parsed answer, so those pages, and error answers, go through `readSearchPage`.
 *
 * This skips decoding the answer, JSON.parse, projection, JSON.stringify and encoding our answer, which together
 * were most of the API's own CPU per search (docs/benchmarks/code-measurements.md).
 */
export function searchPageJson(answer: Buffer, page: PageContext, extra: ExtraMeta = {}): Buffer<ArrayBuffer> {
  const fields = copiedFields(page);
  const read = fields && readAnswer(answer, page, fields);
  if (!read) return searchPageBody(readSearchPage(JSON.parse(answer.toString('utf8')), page), extra);

  const { hits, took, total } = read;
  const shown = hits.slice(0, page.limit);
  const hasMore = hits.length > page.limit;
  const meta = {
    has_more: hasMore,
    cursor: hasMore ? cursorAfterHit(answer, shown[shown.length - 1], page) : null,
    took_ms: (took ? EngineTook.parse(parseSpan(answer, took)) : undefined) ?? null,
    total: totalOf(total ? EngineTotal.parse(parseSpan(answer, total)) : undefined, hits.length, hasMore),
    ...extra,
  };
  const parts: Buffer[] = [OPEN_DATA];
  shown.forEach((hit, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(...recordParts(answer, hit));
  });
  parts.push(OPEN_META, Buffer.from(JSON.stringify(meta)), CLOSE);
  return Buffer.concat(parts);
}

/** The fields a page shows, when its records can be copied: not for a dotted path, nor for aggregations. */
interface CopiedFields {
  readonly names: ReadonlySet<string>;
  /** A sort key that is not a field: the engine sends it too, so each key is checked against the names. */
  readonly sortOnly: boolean;
}

function copiedFields(page: PageContext): CopiedFields | undefined {
  // `_record` holds each field under its own name, so a literal dotted key is copied as it is; a path is not.
  const nested = (field: string) => field.includes('.') && !page.literalFields.has(field);
  if (page.aggregations.length > 0 || page.fields.some(nested)) return undefined;
  const names = new Set(page.fields);
  return { names, sortOnly: page.exactSortValues.some(({ path }) => !names.has(path)) };
}

interface Hit {
  /** The hit's `_record`, if it has one. */
  record?: JsonSpan;
  /** Its members (key to value) as start and end pairs, when some of them are not to be shown. */
  kept?: number[];
  sort?: JsonSpan;
}

/** The hits, took and total of an answer, in one walk through it; undefined for an error answer. */
function readAnswer(
  answer: Buffer,
  page: PageContext,
  fields: CopiedFields,
): { hits: Hit[]; took?: JsonSpan; total?: JsonSpan } | undefined {
  const hits: Hit[] = [];
  let took: JsonSpan | undefined;
  let total: JsonSpan | undefined;
  let error = false;
  walkObject(answer, skipWhitespace(answer, 0), (keyStart, keyEnd, start) => {
    if (keyEquals(answer, keyStart, keyEnd, 'hits')) {
      return walkObject(answer, start, (innerStart, innerEnd, valueStart) => {
        if (keyEquals(answer, innerStart, innerEnd, 'hits')) {
          return walkArray(answer, valueStart, (hitStart) => {
            const hit: Hit = {};
            hits.push(hit);
            // Records past the page are not read (the one more hit only says there is more).
            return readHit(answer, hitStart, hit, hits.length <= page.limit ? fields : undefined);
          });
        }
        const end = valueEnd(answer, valueStart);
        if (keyEquals(answer, innerStart, innerEnd, 'total')) total = { start: valueStart, end };
        return end;
      });
    }
    const end = valueEnd(answer, start);
    if (keyEquals(answer, keyStart, keyEnd, 'took')) took = { start, end };
    else if (keyEquals(answer, keyStart, keyEnd, 'error')) error = true;
    return end;
  });
  return error ? undefined : { hits, took, total };
}

/** Reads a hit's sort values and `_source._record` (with `fields`: each of its members); returns the hit's end. */
function readHit(answer: Buffer, start: number, hit: Hit, fields: CopiedFields | undefined): number {
  return walkObject(answer, start, (keyStart, keyEnd, valueStart) => {
    if (keyEquals(answer, keyStart, keyEnd, 'sort')) {
      hit.sort = { start: valueStart, end: valueEnd(answer, valueStart) };
      return hit.sort.end;
    }
    if (!keyEquals(answer, keyStart, keyEnd, '_source')) return valueEnd(answer, valueStart);
    if (answer[valueStart] !== OPEN_BRACE) throw new Error('search response: a hit _source must be an object');
    return walkObject(answer, valueStart, (sourceKeyStart, sourceKeyEnd, recordStart) => {
      if (!keyEquals(answer, sourceKeyStart, sourceKeyEnd, '_record') || answer[recordStart] !== OPEN_BRACE) {
        return valueEnd(answer, recordStart);
      }
      if (!fields) {
        hit.record = { start: recordStart, end: valueEnd(answer, recordStart) };
        return hit.record.end;
      }
      // Every plain key is shown (see `shows`): a record with nothing but plain keys is copied whole, found in one loop.
      const plainEnd = fields.sortOnly ? -1 : plainKeysObjectEnd(answer, recordStart);
      if (plainEnd >= 0) {
        hit.record = { start: recordStart, end: plainEnd };
        return plainEnd;
      }
      const members: number[] = [];
      let dropped = false;
      const end = walkObject(answer, recordStart, (memberStart, memberKeyEnd, memberValueStart) => {
        const memberEnd = valueEnd(answer, memberValueStart);
        if (shows(answer, memberStart, memberKeyEnd, fields)) members.push(memberStart, memberEnd);
        else dropped = true;
        return memberEnd;
      });
      hit.record = { start: recordStart, end };
      if (dropped) hit.kept = members;
      return end;
    });
  });
}

/**
 * Whether a record member is one of the page's fields. The engine sent only members its includes match: a plain
 * key (no dot, no escape) is a field, unless a sort-only key is among them; anything else is read and looked up.
 */
function shows(answer: Buffer, keyStart: number, keyEnd: number, fields: CopiedFields): boolean {
  if (!fields.sortOnly && keyEnd - keyStart > 2) {
    let plain = true;
    for (let i = keyStart + 1; i < keyEnd - 1 && plain; i++) plain = answer[i] !== DOT && answer[i] !== BACKSLASH;
    if (plain) return true;
  }
  return fields.names.has(keyText(answer, keyStart, keyEnd));
}

/** The record's bytes as our answer shows it: the engine's, or those of the members kept. */
function recordParts(answer: Buffer, hit: Hit): Buffer[] {
  if (!hit.record) return [EMPTY_RECORD];
  if (!hit.kept) return [answer.subarray(hit.record.start, hit.record.end)];
  const parts: Buffer[] = [OPEN_RECORD];
  for (let i = 0; i < hit.kept.length; i += 2) {
    if (i > 0) parts.push(COMMA);
    parts.push(answer.subarray(hit.kept[i], hit.kept[i + 1]));
  }
  parts.push(CLOSE);
  return parts;
}

function cursorAfterHit(answer: Buffer, hit: Hit | undefined, page: PageContext): string {
  if (!hit?.sort) throw new Error('search response hits carry no sort values');
  const values = EngineSortValues.parse(parseSpan(answer, hit.sort)) ?? [];
  // Only an int64 or decimal sort key needs the record (its exact value); the rest is in the sort values.
  const record = page.exactSortValues.length > 0 && hit.record ? parseSpan(answer, hit.record) : undefined;
  return cursorAfter(values, record, page);
}
