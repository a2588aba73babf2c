import { describe, expect, it } from 'vitest';
import { TEST_SCHEMA } from '../testing/test-schema.ts';
import { toIndexDocument } from './index-document.ts';
import { buildIndexMapping } from './index-mapping.ts';

const STRING = {
  type: 'keyword',
  ignore_above: 8191,
  fields: {
    text: { type: 'text', analyzer: 'conduit_folded' },
    wc: { type: 'wildcard', normalizer: 'conduit_lowercase' },
  },
};

describe('buildIndexMapping (golden)', () => {
  const { settings, mappings } = buildIndexMapping(TEST_SCHEMA, 'id');

  it('declares the analysis and limits the compiler relies on', () => {
    expect(settings).toEqual({
      'index.max_result_window': 10_001,
      'index.mapping.nested_objects.limit': 100_000,
      analysis: {
        analyzer: { conduit_folded: { type: 'custom', tokenizer: 'standard', filter: ['lowercase', 'asciifolding'] } },
        normalizer: { conduit_lowercase: { type: 'custom', filter: ['lowercase'] } },
      },
    });
  });

  it('maps every field type', () => {
    const date = {
      type: 'date',
      format: 'strict_date_optional_time||date_optional_time||epoch_millis',
      ignore_malformed: true,
    };
    expect(mappings).toEqual({
      dynamic: false,
      _meta: { record_key: 'id', generated_by: '@conduit/search-dsl' },
      properties: {
        _connector_id: { type: 'keyword' },
        _key: { type: 'keyword' },
        _record: { type: 'object', enabled: false },
        _flat: { type: 'object', dynamic: false, properties: { address: { type: 'flat_object' } } },
        id: STRING,
        name: STRING,
        title: STRING,
        created_at: date,
        amount: { type: 'double', coerce: true, ignore_malformed: true },
        count: { type: 'long', coerce: true, ignore_malformed: true },
        price: {
          type: 'object',
          dynamic: false,
          properties: {
            scaled: { type: 'long' },
            units: { type: 'long' },
            fraction: { type: 'long' },
            scale: { type: 'byte' },
          },
        },
        active: { type: 'boolean' },
        tags: STRING,
        scores: { type: 'long', coerce: true, ignore_malformed: true },
        meta: { type: 'flat_object' },
        address: {
          type: 'object',
          dynamic: false,
          properties: {
            city: STRING,
            zip: STRING,
            geo: {
              type: 'object',
              dynamic: false,
              properties: { lat: { type: 'double', coerce: true, ignore_malformed: true } },
            },
          },
        },
        lines: {
          type: 'nested',
          dynamic: false,
          properties: {
            sku: STRING,
            qty: { type: 'long', coerce: true, ignore_malformed: true },
            at: date,
            attrs: { type: 'flat_object' },
          },
        },
      },
    });
  });
});

describe('toIndexDocument', () => {
  const options = { searchable: TEST_SCHEMA, recordKey: 'id', connectorId: 'c1' };

  it('indexes values in the form their mapping expects and keeps the original record', () => {
    const record = {
      id: 7,
      name: 5,
      created_at: '2024-02-10T01:01:56+01:00',
      amount: '2.5',
      count: '9007199254740993',
      active: 'true',
      tags: ['a', 1, null, { x: 1 }],
      address: { city: 'Oslo', other: 'x' },
      lines: [{ sku: 'A', qty: '2', junk: 1 }, 'junk'],
      blobs: [1],
      unlisted: 'dropped',
    };
    const { unlisted: _u, ...searchable } = record;
    expect(toIndexDocument(record, options)).toEqual({
      _connector_id: 'c1',
      _key: '7',
      _record: searchable,
      id: '7',
      name: '5',
      created_at: '2024-02-10T00:01:56.000Z',
      amount: 2.5,
      count: '9007199254740993',
      active: true,
      tags: ['a', '1'],
      address: { city: 'Oslo' },
      _flat: { address: { city: 'Oslo', other: 'x' } },
      lines: [{ sku: 'A', qty: '2' }],
    });
  });

  it('leaves out values that do not fit their declared type', () => {
    const doc = toIndexDocument(
      {
        id: 'a',
        name: { x: 1 },
        created_at: 'soon',
        amount: 'abc',
        count: 1.5,
        active: 'yes',
        meta: 'text',
        address: [1],
        lines: {},
      },
      options,
    );
    expect(Object.keys(doc).sort()).toEqual(['_connector_id', '_key', '_record', 'id']);
  });

  it('cleans untyped objects for flat_object: no empty keys, no oversized terms', () => {
    const doc = toIndexDocument(
      { id: 'a', meta: { '': 1, 'a..b': 2, ok: 'x'.repeat(40_000), fine: [1, { y: 'z' }] } },
      options,
    );
    expect(doc.meta).toEqual({ fine: [1, { y: 'z' }] });
  });
});
