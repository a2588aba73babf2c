import { createHash } from 'node:crypto';
import type { FieldMap, FieldSpec } from '@conduit/connectors';
import { isPlainObject } from '@conduit/connectors';
import { decimalDocument } from '../fields/decimal.ts';
import { INTERNAL_FIELDS } from '../fields/field-resolution.ts';
import { toBoolean, toInstant, toInteger, toNumber } from '../fields/values.ts';
import { SEARCH_LIMITS } from '../limits.ts';

export type IndexDocument = Record<string, unknown>;

export type IndexDocumentOptions = {
  readonly searchable: FieldMap;
  readonly recordKey: string;
  readonly connectorId: string;
};

/** Max UTF-8 bytes of one flat_object leaf (path + value): Lucene rejects terms over 32766 bytes. */
const MAX_FLAT_TERM_BYTES = 30_000;
const MAX_FLAT_DEPTH = 64;

/**
 * The document to index for one upstream record: the original searchable fields under `_record` (results are
 * read from there, unchanged), plus each searchable field under its own name in the form its mapping expects
 * (dates as ISO instants, int64 as decimal strings, numeric strings as numbers). A value that does not fit its
 * declared type is left out of the indexed copy (it does not match any condition, like null) but stays in
 * results. This is what keeps every upstream record indexable whatever its shape.
 */
export function toIndexDocument(record: Record<string, unknown>, options: IndexDocumentOptions): IndexDocument {
  const key = record[options.recordKey];
  const doc: IndexDocument = {
    [INTERNAL_FIELDS.connectorId]: options.connectorId,
    [INTERNAL_FIELDS.key]: typeof key === 'string' ? key : JSON.stringify(key ?? null),
  };
  const original: Record<string, unknown> = {};
  const flat: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(options.searchable)) {
    const value = record[name];
    if (value === undefined) continue;
    original[name] = value;
    const indexed = indexValue(spec, value);
    if (indexed !== undefined) doc[name] = indexed;
    if (spec.type === 'object' && spec.fields && isPlainObject(value)) flat[name] = flatValue(value, name.length, 0);
  }
  doc[INTERNAL_FIELDS.record] = original;
  if (Object.keys(flat).length > 0) doc[INTERNAL_FIELDS.flat] = flat;
  return doc;
}

/** A stable document id for a record of a connector (ids are limited to 512 bytes, keys are not). */
export function indexDocumentId(connectorId: string, recordKey: string): string {
  return createHash('sha256').update(connectorId).update('\0').update(recordKey).digest('base64url');
}

/** A value in the form the field's mapping indexes, or undefined when it does not fit the declared type. */
export function indexValue(spec: FieldSpec, value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  switch (spec.type) {
    case 'string':
      return typeof value === 'string'
        ? value
        : typeof value === 'number' || typeof value === 'boolean'
          ? String(value)
          : undefined;
    case 'datetime':
      return toInstant(value);
    case 'integer':
      return toInteger(value);
    case 'number':
      return toNumber(value);
    case 'decimal':
      return decimalDocument(value);
    case 'boolean':
      return toBoolean(value);
    case 'object': {
      if (!isPlainObject(value)) return undefined;
      if (!spec.fields) return flatValue(value, 0, 0);
      const out: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(spec.fields)) {
        const indexed = indexValue(sub, value[name]);
        if (indexed !== undefined) out[name] = indexed;
      }
      return out;
    }
    case 'array': {
      const items = spec.items;
      if (!Array.isArray(value) || !items || items.type === 'array') return undefined;
      if (items.type === 'object' && !items.fields) return undefined;
      const limit = items.type === 'object' ? SEARCH_LIMITS.maxNestedElements : Number.POSITIVE_INFINITY;
      const out = value
        .slice(0, limit)
        .map((item) => indexValue(items, item))
        .filter((item) => item !== undefined);
      return out.length > 0 ? out : undefined;
    }
  }
}

/** Copy of an untyped object that `flat_object` accepts: no empty keys, no oversized terms, bounded depth. */
function flatValue(value: Record<string, unknown>, pathBytes: number, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === '' || key.startsWith('.') || key.endsWith('.') || key.includes('..')) continue;
    const flatChild = flatElement(child, pathBytes + Buffer.byteLength(key) + 1, depth + 1);
    if (flatChild !== undefined) out[key] = flatChild;
  }
  return out;
}

function flatElement(value: unknown, pathBytes: number, depth: number): unknown {
  if (depth > MAX_FLAT_DEPTH) return undefined;
  if (typeof value === 'string') return pathBytes + Buffer.byteLength(value) > MAX_FLAT_TERM_BYTES ? undefined : value;
  if (Array.isArray(value))
    return value.map((v) => flatElement(v, pathBytes, depth + 1)).filter((v) => v !== undefined);
  if (isPlainObject(value)) return flatValue(value, pathBytes, depth);
  return value;
}
