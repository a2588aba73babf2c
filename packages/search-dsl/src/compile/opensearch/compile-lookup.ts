import { EqNode, InNode, type Node } from '../../ast/nodes.ts';
import { type FieldRef, INTERNAL_FIELDS } from '../../fields/field-resolution.ts';
import { SEARCH_LIMITS } from '../../limits.ts';
import { indexDocumentId } from '../../mapping/index-document.ts';
import type { ValidatedSearch } from '../../validate/validate-search.ts';

/**
 * A search that asks for records by their keys, answered by the engine's multi-get (`_mget`) of their document
 * ids instead of a query: the same page for about half the engine's work on an id lookup
 * (docs/benchmarks/code-measurements.md).
 */
export type KeyLookup = {
  /** Document ids of the keys asked for, in the page's order (`_key` ascending, as the search sorts). */
  readonly ids: readonly string[];
  /**
   * The search's source includes and the tombstone marker: a removed record's document is found by its id, and
   * `lookupAnswerAsSearch` leaves it out by that marker.
   */
  readonly includes: readonly string[];
};

/**
 * Stage 3, beside `compileSearch`: the lookup that answers `search` exactly as its `_search` body would, or
 * undefined when there is none. That is a filter of only `eq` or `in` on a string record key, with no sort,
 * cursor or aggregation, whose keys all fit on the page (so it has no next page).
 *
 * Exactly, because the key is stored as the record's key field, a string (sync: `recordKeyOf`), and the document
 * id is derived from it: a document matches the term on that field if and only if it is the document of that
 * key. Keys longer than the field indexes for exact match (`maxExactStringLength`) match no term, so they are
 * not looked up either. Both read the last refreshed copy (the caller asks for `realtime=false`).
 */
export function compileLookup(
  search: ValidatedSearch,
  options: { readonly recordKey: string; readonly connectorId: string; readonly includes: readonly string[] },
): KeyLookup | undefined {
  if (search.sort.length > 0 || search.cursor !== undefined || search.aggregations.length > 0) return undefined;
  const asked = keysAsked(search.filter, options.recordKey);
  if (!asked) return undefined;
  const keys = [...new Set(asked)].filter((key) => key.length <= SEARCH_LIMITS.maxExactStringLength);
  if (keys.length === 0 || keys.length > search.limit) return undefined;
  // A keyword sorts by its UTF-8 bytes, which is not JavaScript's UTF-16 order past the basic plane.
  const ordered = keys.map((key) => ({ key, bytes: Buffer.from(key, 'utf8') }));
  ordered.sort((a, b) => Buffer.compare(a.bytes, b.bytes));
  return {
    ids: ordered.map(({ key }) => indexDocumentId(options.connectorId, key)),
    includes: [...options.includes, INTERNAL_FIELDS.deleted],
  };
}

function keysAsked(filter: Node, recordKey: string): readonly string[] | undefined {
  if (EqNode.is(filter) && isStringKey(filter.field, recordKey) && typeof filter.value === 'string') {
    return [filter.value];
  }
  if (InNode.is(filter) && isStringKey(filter.field, recordKey)) {
    return filter.values.every((value) => typeof value === 'string') ? (filter.values as string[]) : undefined;
  }
  return undefined;
}

function isStringKey(field: FieldRef, recordKey: string): boolean {
  return field.storage === 'typed' && field.path === recordKey && field.spec.type === 'string';
}
