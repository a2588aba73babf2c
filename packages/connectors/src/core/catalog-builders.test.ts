import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { entity, fieldCursor, unpaged } from './catalog.ts';
import { t } from './field-spec.ts';

const record = { id: t.string(), name: t.string() };
const list = z.strictObject({});

describe('entity()', () => {
  it('keys by id and makes a replicated entity searchable on every record field', () => {
    const declared = entity({ name: 'things', record, actions: { list }, sync: { mode: 'full_refresh' } });
    expect(declared.recordKey).toBe('id');
    expect(declared.searchable).toBe(record);
  });

  it('leaves an entity that is not replicated unsearchable (searchable and sync go together)', () => {
    const declared = entity({ name: 'things', record, actions: { list } });
    expect(declared).not.toHaveProperty('searchable');
    expect(declared).not.toHaveProperty('sync');
  });

  it('keeps the record key and searchable fields an entity states', () => {
    const searchable = { name: t.string() };
    const declared = entity({
      name: 'things',
      recordKey: 'name',
      record,
      searchable,
      actions: { list },
      sync: { mode: 'full_refresh' },
    });
    expect([declared.recordKey, declared.searchable]).toEqual(['name', searchable]);
  });
});

describe('fieldCursor()', () => {
  it('is change capture through a record field, with no delay unless one is documented', () => {
    expect(fieldCursor({ seesEdits: true, seesDeletions: false }, 'vendor docs')).toEqual({
      seesEdits: true,
      seesDeletions: false,
      lookbackMs: 0,
      cursor: 'field',
      source: 'vendor docs',
    });
    expect(fieldCursor({ seesEdits: false, seesDeletions: true, lookbackMs: 10_800_000 }, 'x').lookbackMs).toBe(
      10_800_000,
    );
  });
});

describe('unpaged()', () => {
  it('is a list answered whole in one response, records at a path or the answer itself', () => {
    expect(unpaged('images', null)).toEqual({ path: 'images', records: null, paging: { type: 'none' } });
    expect(unpaged('forms/{form_id}/webhooks', 'items').records).toBe('items');
  });
});
