import { planSearch } from '@conduit/search-dsl';
import { describe, expect, it } from 'vitest';
import { changeConcerns } from './change-concerns.ts';

const filterOf = (filter: unknown) =>
  planSearch(
    { query: { filter } },
    {
      searchable: {
        id: { type: 'string', nullable: true },
        status: { type: 'string', nullable: true },
        total: { type: 'decimal', nullable: true },
      },
      recordKey: 'id',
      connectorId: 'c',
      entity: 'Kind/things',
      cursorKey: 'k'.repeat(32),
    },
  ).search.filter;

const PAID = filterOf({ eq: { status: 'paid' } });
const paid = { id: 'a', status: 'paid', total: '1.00' };
const draft = { id: 'a', status: 'draft', total: '1.00' };

describe('whether a change may alter an answer', () => {
  it('leaves it when the record before and after are both outside the filter', () => {
    expect(changeConcerns(PAID, { record: draft, prior: { ...draft, total: '2.00' } })).toBe(false);
    expect(changeConcerns(PAID, { record: draft, prior: null })).toBe(false);
    expect(changeConcerns(PAID, { record: null, prior: draft })).toBe(false);
  });

  it('drops it when either is inside', () => {
    expect(changeConcerns(PAID, { record: paid, prior: draft })).toBe(true);
    expect(changeConcerns(PAID, { record: draft, prior: paid })).toBe(true);
    expect(changeConcerns(PAID, { record: null, prior: paid })).toBe(true);
    expect(changeConcerns(PAID, { record: paid, prior: null })).toBe(true);
  });

  it('drops it when the record before is unknown', () => {
    expect(changeConcerns(PAID, { record: draft, prior: undefined })).toBe(true);
  });

  it('decides on ranges of decimals as the search language compares them', () => {
    const over = filterOf({ gt: { total: '10.5' } });
    expect(changeConcerns(over, { record: { ...draft, total: '10.50' }, prior: null })).toBe(false);
    expect(changeConcerns(over, { record: { ...draft, total: '10.51' }, prior: null })).toBe(true);
  });
});
