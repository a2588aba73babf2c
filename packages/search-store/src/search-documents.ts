import { at, type EntityCatalog } from '@conduit/connectors';
import { INTERNAL_FIELDS, type IndexDocument, indexDocumentId, toIndexDocument } from '@conduit/search-dsl';

/** The field marking which sync run last wrote a document (full refresh removes the others). */
export const SYNC_RUN_FIELD = '_sync_run';
/** On a tombstone: when the removal was read (ms since epoch), for purging it after CHANGES_RETENTION. */
export const DELETED_AT_FIELD = '_deleted_at';

export function recordKeyOf(entity: EntityCatalog, record: Record<string, unknown>): string | null {
  const value = fieldValue(record, entity.recordKey);
  return value === undefined || value === null || value === '' ? null : String(value);
}

/**
 * The searchable projection of an upstream record, keyed by the searchable paths of the catalog (dotted where
 * listed). Upstreams that answer in camelCase (Google Ads REST) are matched against the snake_case paths.
 */
export function projectRecord(entity: EntityCatalog, record: Record<string, unknown>): Record<string, unknown> {
  const projected: Record<string, unknown> = {};
  for (const path of Object.keys(entity.searchable ?? {})) {
    const value = fieldValue(record, path);
    if (value !== undefined) projected[path] = value;
  }
  return projected;
}

/** The document search-dsl's mapping expects for `record`, with its id; null for a record without a key. */
export function searchDocument(
  entity: EntityCatalog,
  connectorId: string,
  runId: string,
  record: Record<string, unknown>,
): { id: string; key: string; doc: IndexDocument } | null {
  const key = recordKeyOf(entity, record);
  if (key === null) return null;
  const projected = { ...projectRecord(entity, record), [entity.recordKey]: key };
  const doc = toIndexDocument(projected, {
    searchable: entity.searchable ?? {},
    recordKey: entity.recordKey,
    connectorId,
  });
  return { id: indexDocumentId(connectorId, key), key, doc: { ...doc, [SYNC_RUN_FIELD]: runId } };
}

/**
 * What a removed record leaves in the copy (docs/changes.md): its key, marked deleted, no record. Searches,
 * counts, aggregations and lookups leave it out (search-dsl's copyScope); it is purged after CHANGES_RETENTION.
 */
export function tombstoneDocument(connectorId: string, key: string, removedAt: number): Record<string, unknown> {
  return {
    [INTERNAL_FIELDS.connectorId]: connectorId,
    [INTERNAL_FIELDS.key]: key,
    [INTERNAL_FIELDS.deleted]: true,
    [DELETED_AT_FIELD]: removedAt,
  };
}

/** A searchable field's value in an upstream record: at its dotted path, or at the camelCase spelling of it. */
function fieldValue(record: Record<string, unknown>, path: string): unknown {
  if (path in record) return record[path];
  const exact = at(record, path);
  if (exact !== undefined) return exact;
  const camel = path
    .split('.')
    .map((s) => s.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()))
    .join('.');
  return camel === path ? undefined : at(record, camel);
}
