import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { AppliedRecordChange } from './change-feed.ts';

/** Which path wrote a change to the copy (the change feed's `source`). */
export type ChangeSource = 'sync' | 'full_pass' | 'webhook' | 'execute';

/** A write the engine applied to the copy: a record as read (upsert) or its removal (a tombstone). */
export type AppliedWrite =
  | {
      readonly kind: 'upsert';
      readonly key: string;
      /** The read instant the write carried (ms since epoch): its version in the copy. */
      readonly version: number;
      readonly record: Record<string, unknown>;
    }
  | { readonly kind: 'remove'; readonly key: string; readonly version: number };

/** Whose writes they were: one entity of one connector, and the path that wrote them. */
export interface ChangeTarget {
  readonly connectorId: string;
  readonly entity: string;
  readonly source: ChangeSource;
}

/**
 * What one write to the copy applied, in order (the stale writes the engine refused are not here): the writer
 * appends it to the change feed once the engine acknowledged it (ChangeFeedRepository.appendWritten).
 */
export interface WrittenChanges {
  readonly target: ChangeTarget;
  readonly applied: readonly AppliedWrite[];
}

/**
 * The feed's rows of applied writes: each record serialized once as RFC 8785 canonical JSON (keys in order, so the
 * same content hashes the same however it was keyed; https://www.rfc-editor.org/rfc/rfc8785), with its SHA-256.
 */
export function recordChangesOf(writes: readonly AppliedWrite[]): AppliedRecordChange[] {
  return writes.map((write) => {
    if (write.kind !== 'upsert') return { key: write.key, version: write.version, contentHash: null, recordJson: null };
    const recordJson = canonicalize(write.record) ?? 'null';
    return {
      key: write.key,
      version: write.version,
      contentHash: createHash('sha256').update(recordJson).digest('base64url'),
      recordJson,
    };
  });
}
