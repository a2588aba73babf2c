import type { AppliedWrite } from '@conduit/db';
import { indexDocumentId } from '@conduit/search-dsl';
import { tombstoneDocument } from './search-documents.ts';

/**
 * Every write carries its upstream read instant as the document's version: the engine keeps a write only when it
 * is at least as new as what it holds (docs/changes.md). `external_gte`, not `external`: a retried write of the
 * same read (same version) lands again instead of failing.
 */
export const VERSION_TYPE = 'external_gte';
/** Documents per page when the copy is walked (an index copy, removals, purges, deletes). */
export const COPY_PAGE = 1000;

/** The items of a bulk answer, as far as the copy reads them. */
export interface BulkAnswer {
  items: Partial<Record<'index' | 'delete', { status: number; error?: unknown }>>[];
}

/** One document of a versioned bulk write. */
export interface VersionedDocument {
  readonly id: string;
  readonly version: number;
  readonly doc: Record<string, unknown>;
  readonly write: AppliedWrite;
}

/** The version of the write at `index`: its read instant (ms since epoch), checked. */
export function versionAt(readAt: number | readonly number[], index: number): number {
  const version = typeof readAt === 'number' ? readAt : readAt[index];
  if (version === undefined || !Number.isSafeInteger(version) || version < 0) {
    throw new Error(`a write to the copy needs its read instant (ms since epoch), got ${String(version)}`);
  }
  return version;
}

/** A removal as a versioned document: the record's tombstone. */
export function tombstoneOf(connectorId: string, key: string, version: number): VersionedDocument {
  return {
    id: indexDocumentId(connectorId, key),
    version,
    doc: tombstoneDocument(connectorId, key, version),
    write: { kind: 'remove', key, version },
  };
}

/** One document per id: the newest (the later of equals, as the engine would apply them in turn). */
export function uniqueById(documents: readonly VersionedDocument[]): VersionedDocument[] {
  const byId = new Map<string, VersionedDocument>();
  for (const document of documents) {
    const seen = byId.get(document.id);
    if (seen && seen.version > document.version) continue;
    byId.delete(document.id);
    byId.set(document.id, document);
  }
  return [...byId.values()];
}
