import { INTERNAL_FIELDS } from '../fields/field-resolution.ts';
import { compareCodePoints } from '../fields/values.ts';
import { type IndexDocumentOptions, toIndexDocument } from '../mapping/index-document.ts';
import { projectSource, type SearchRecord } from '../results/read-search-page.ts';
import type { ValidatedSearch } from '../validate/validate-search.ts';
import { matches } from './evaluate.ts';
import { compareValues, fieldType, readValues } from './read-values.ts';

export type ReferenceHit = { readonly key: string; readonly record: SearchRecord };

/**
 * The reference answer to a validated search over in-memory upstream records (test oracle): the records of
 * `options.connectorId` that match, in the total order of DESIGN.md §4 (sort keys with missing values last
 * either way, then the record key), projected to `fields`. Page it with `referencePage`.
 */
export function referenceSearch(
  records: readonly Record<string, unknown>[],
  options: IndexDocumentOptions,
  search: Pick<ValidatedSearch, 'filter' | 'sort' | 'fields'>,
): ReferenceHit[] {
  const docs = records.map((record) => toIndexDocument(record, options)).filter((doc) => matches(search.filter, doc));
  const keyOf = (doc: Record<string, unknown>) => String(doc[INTERNAL_FIELDS.key]);
  const sortValue = (doc: Record<string, unknown>, i: number) => {
    const key = search.sort[i]!;
    const values = readValues(doc, key.field, '');
    return values[0];
  };
  docs.sort((a, b) => {
    for (let i = 0; i < search.sort.length; i++) {
      const { field, direction } = search.sort[i]!;
      const x = sortValue(a, i);
      const y = sortValue(b, i);
      if (x === undefined || y === undefined) {
        if (x === undefined && y === undefined) continue;
        return x === undefined ? 1 : -1;
      }
      const c = compareValues(fieldType(field), x, y);
      if (c !== 0) return direction === 'asc' ? Math.sign(c) : -Math.sign(c);
    }
    return compareCodePoints(keyOf(a), keyOf(b));
  });
  return docs.map((doc) => ({ key: keyOf(doc), record: projectSource(doc, search.fields) }));
}

/** One page of a reference answer: hits after the one with key `afterKey` (or from the start). */
export function referencePage(hits: readonly ReferenceHit[], limit: number, afterKey?: string) {
  const start = afterKey === undefined ? 0 : hits.findIndex((h) => h.key === afterKey) + 1;
  return { hits: hits.slice(start, start + limit), hasMore: start + limit < hits.length };
}
