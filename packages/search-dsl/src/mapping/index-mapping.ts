import type { FieldMap, FieldSpec } from '@conduit/connectors';
import { DECIMAL_SUBFIELDS } from '../fields/decimal.ts';
import { INTERNAL_FIELDS, STRING_SUBFIELDS } from '../fields/field-resolution.ts';
import { SEARCH_LIMITS } from '../limits.ts';
import { ENGLISH_SUBFIELD, embeddedStringFields, vectorMappings } from '../semantic/vector-fields.ts';

export const TEXT_ANALYZER = 'conduit_folded';
export const LOWERCASE_NORMALIZER = 'conduit_lowercase';

export type IndexMapping = {
  readonly settings: Record<string, unknown>;
  readonly mappings: Record<string, unknown>;
};

/**
 * Index settings and mappings for one entity, generated from its searchable fields. Documents must be built
 * with `toIndexDocument`, which puts each value where these mappings expect it; `dynamic: false` and the
 * builder's sanitizing mean an upstream record is never rejected for its shape.
 *
 * @example
 * const { settings, mappings } = buildIndexMapping(catalog.searchable, catalog.recordKey);
 * await client.indices.create({ index, body: { settings, mappings } });
 */
export function buildIndexMapping(
  searchable: FieldMap,
  recordKey: string,
  embed: readonly string[] = [],
): IndexMapping {
  const properties: Record<string, unknown> = {};
  const flat: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(searchable)) {
    const mapping = fieldMapping(spec, false);
    if (mapping) properties[name] = mapping;
    if (spec.type === 'object' && spec.fields) flat[name] = { type: 'flat_object' };
  }
  // An entity with meaning-bearing fields (the catalog's `embed`) gets their English word side and the vector; the
  // mappings of the others do not change (nor, then, their index versions).
  for (const name of embeddedStringFields(searchable, embed)) {
    const mapping = properties[name] as { fields: Record<string, unknown> };
    mapping.fields = { ...mapping.fields, [ENGLISH_SUBFIELD]: { type: 'text', analyzer: 'english' } };
  }
  const semantic = embed.length > 0;
  return {
    settings: {
      ...(semantic ? { 'index.knn': true } : {}),
      // size = limit + 1 must fit in one result window.
      'index.max_result_window': SEARCH_LIMITS.maxLimit + 1,
      'index.mapping.nested_objects.limit': 100_000,
      analysis: {
        analyzer: {
          [TEXT_ANALYZER]: { type: 'custom', tokenizer: 'standard', filter: ['lowercase', 'asciifolding'] },
        },
        normalizer: { [LOWERCASE_NORMALIZER]: { type: 'custom', filter: ['lowercase'] } },
      },
    },
    mappings: {
      dynamic: false,
      _meta: { record_key: recordKey, generated_by: '@conduit/search-dsl' },
      properties: {
        [INTERNAL_FIELDS.connectorId]: { type: 'keyword' },
        [INTERNAL_FIELDS.key]: { type: 'keyword' },
        // The record as the upstream sent it (searchable fields only): what results are projected from.
        [INTERNAL_FIELDS.record]: { type: 'object', enabled: false },
        [INTERNAL_FIELDS.flat]: { type: 'object', dynamic: false, properties: flat },
        ...properties,
        ...(semantic ? vectorMappings() : {}),
      },
    },
  };
}

/** The mapping of one field, or undefined for values that are kept in results only (see field-resolution.ts). */
export function fieldMapping(spec: FieldSpec, nested: boolean): Record<string, unknown> | undefined {
  switch (spec.type) {
    case 'string':
      return {
        type: 'keyword',
        ignore_above: SEARCH_LIMITS.maxExactStringLength,
        fields: {
          [STRING_SUBFIELDS.text]: { type: 'text', analyzer: TEXT_ANALYZER },
          [STRING_SUBFIELDS.wildcard]: { type: 'wildcard', normalizer: LOWERCASE_NORMALIZER },
        },
      };
    case 'datetime':
      return {
        type: 'date',
        format: 'strict_date_optional_time||date_optional_time||epoch_millis',
        ignore_malformed: true,
      };
    case 'integer':
      return { type: 'long', coerce: true, ignore_malformed: true };
    case 'number':
      return { type: 'double', coerce: true, ignore_malformed: true };
    case 'decimal':
      // Three exact integers per amount, and the scale it was written with (see fields/decimal.ts for why).
      return {
        type: 'object',
        dynamic: false,
        properties: {
          [DECIMAL_SUBFIELDS.scaled]: { type: 'long' },
          [DECIMAL_SUBFIELDS.units]: { type: 'long' },
          [DECIMAL_SUBFIELDS.fraction]: { type: 'long' },
          [DECIMAL_SUBFIELDS.scale]: { type: 'byte' },
        },
      };
    case 'boolean':
      return { type: 'boolean' };
    case 'object':
      return spec.fields
        ? { type: 'object', dynamic: false, properties: mapFields(spec.fields, nested) }
        : { type: 'flat_object' };
    case 'array': {
      const items = spec.items;
      if (!items || items.type === 'array') return undefined;
      if (items.type === 'object') {
        return items.fields ? { type: 'nested', dynamic: false, properties: mapFields(items.fields, true) } : undefined;
      }
      return fieldMapping(items, nested);
    }
  }
}

function mapFields(fields: FieldMap, nested: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(fields)) {
    const mapping = fieldMapping(spec, nested);
    if (mapping) out[name] = mapping;
  }
  return out;
}
