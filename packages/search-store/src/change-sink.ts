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

export interface ChangeTarget {
  readonly connectorId: string;
  readonly entity: string;
  readonly source: ChangeSource;
}

/**
 * Told, after each write the engine acknowledged, which of its documents it applied, in order: the change feed
 * turns them into events (created, updated when the content changed, deleted). Writes the engine dropped as
 * older than the copy never reach it.
 */
export interface ChangeSink {
  applied(target: ChangeTarget, writes: readonly AppliedWrite[]): Promise<void>;
}

export const NO_CHANGES: ChangeSink = { applied: async () => undefined };
