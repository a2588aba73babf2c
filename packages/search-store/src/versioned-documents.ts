import { indexDocumentId } from '@conduit/search-dsl';
import type { AppliedWrite } from './change-sink.ts';
import { tombstoneDocument } from './search-documents.ts';

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
