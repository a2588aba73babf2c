import { describe, expect, it } from 'vitest';
import { lookupAnswerAsSearch } from './lookup-answer.ts';

const asSearch = (answer: unknown, tookMs = 3) => {
  const converted = lookupAnswerAsSearch(Buffer.from(JSON.stringify(answer)), tookMs);
  return converted && JSON.parse(converted.toString());
};

describe('lookupAnswerAsSearch', () => {
  it('turns the documents found into hits, in their order, with an exact total and the lookup time', () => {
    const a = { _key: 'a', _record: { id: 'a', name: 'x "y"' } };
    const b = { _key: 'b', _record: { id: 'b' } };
    expect(asSearch({ docs: [{ _source: a }, { _source: b }] }, 2)).toEqual({
      took: 2,
      hits: { total: { value: 2, relation: 'eq' }, hits: [{ _source: a }, { _source: b }] },
    });
  });

  it('reads the answer of lookups that went together, where a document not found is {"found":false}', () => {
    const b = { _key: 'b', _record: { id: 'b' } };
    expect(asSearch({ docs: [{ found: false }, { found: true, _source: b }, { found: false }] }, 1)).toEqual({
      took: 1,
      hits: { total: { value: 1, relation: 'eq' }, hits: [{ found: true, _source: b }] },
    });
  });

  it('leaves out the tombstone of a removed record, as a search would', () => {
    const b = { _key: 'b', _record: { id: 'b' } };
    expect(asSearch({ docs: [{ _source: { _key: 'a', _deleted: true } }, { _source: b }] }, 1)).toEqual({
      took: 1,
      hits: { total: { value: 1, relation: 'eq' }, hits: [{ _source: b }] },
    });
  });

  it('answers no hits when nothing was found (the filtered answer is an empty object)', () => {
    expect(asSearch({})).toEqual({ took: 3, hits: { total: { value: 0, relation: 'eq' }, hits: [] } });
  });

  it('answers nothing when a document could not be looked up, so the search answers instead', () => {
    const error = { type: 'illegal_argument_exception', reason: 'alias [x] has more than one index' };
    expect(asSearch({ docs: [{ _source: { _key: 'a' } }, { error }] })).toBeUndefined();
    expect(asSearch({ error, status: 400 })).toBeUndefined();
  });
});
