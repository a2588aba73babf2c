import { keyEquals, skipWhitespace, valueEnd, walkArray, walkObject } from '@conduit/json-spans';
import { INTERNAL_FIELDS } from '../fields/field-resolution.ts';

const COMMA = Buffer.from(',');

/**
 * An engine `_mget` answer (asked with `filter_path=docs._source,docs.error,error`, so each document found is
 * `{"_source": …}` and one not found is left out, or with `docs.found` as well when lookups went together, so each
 * is `{"found":true,"_source": …}` or `{"found":false}`) as the `_search` answer its lookup stands for: the same
 * hits, in the order they were asked for, with an exact total. `tookMs` is the lookup's time at the engine (from
 * its `_mget` leaving to the engine's last byte), the engine giving no `took` of its own. Undefined when the engine
 * could not look a document up (no index yet, an alias over two indices): the search itself answers those. A
 * removed record's tombstone (its `_source` carries `_deleted`, which the lookup asks for) is left out, as a search
 * leaves it out.
 */
export function lookupAnswerAsSearch(answer: Buffer, tookMs: number): Buffer | undefined {
  const found: Buffer[] = [];
  let failed = false;
  walkObject(answer, skipWhitespace(answer, 0), (keyStart, keyEnd, start) => {
    if (!keyEquals(answer, keyStart, keyEnd, 'docs')) {
      failed = true;
      return valueEnd(answer, start);
    }
    return walkArray(answer, start, (docStart) => {
      let source = false;
      let tombstone = false;
      const docEnd = walkObject(answer, docStart, (memberStart, memberEnd, valueStart) => {
        if (keyEquals(answer, memberStart, memberEnd, '_source')) {
          source = true;
          tombstone = hasMember(answer, valueStart, INTERNAL_FIELDS.deleted);
        } else if (!keyEquals(answer, memberStart, memberEnd, 'found')) failed = true;
        return valueEnd(answer, valueStart);
      });
      if (source && !tombstone) found.push(answer.subarray(docStart, docEnd));
      return docEnd;
    });
  });
  if (failed) return undefined;
  const hits: Buffer[] = [];
  found.forEach((doc, i) => {
    if (i > 0) hits.push(COMMA);
    hits.push(doc);
  });
  return Buffer.concat([
    Buffer.from(`{"took":${tookMs},"hits":{"total":{"value":${found.length},"relation":"eq"},"hits":[`),
    ...hits,
    Buffer.from(']}}'),
  ]);
}

/** Whether the object at `start` has a top-level member named `name`. */
function hasMember(json: Buffer, start: number, name: string): boolean {
  let present = false;
  walkObject(json, start, (keyStart, keyEnd, valueStart) => {
    if (keyEquals(json, keyStart, keyEnd, name)) present = true;
    return valueEnd(json, valueStart);
  });
  return present;
}
