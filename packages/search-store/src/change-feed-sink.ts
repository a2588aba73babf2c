import { createHash } from 'node:crypto';
import type { ChangeFeedRepository } from '@conduit/db';
import type { AppliedWrite, ChangeSink, ChangeTarget } from './change-sink.ts';

/**
 * The change feed's side of the copy (docs/changes.md): every write the engine applied is appended to its
 * connector's feed with the record's content hash, after the engine acknowledged it. Appending after the write
 * means a crash in between loses the event only until the record is read again (the next read is newer, so it
 * applies, and its content differs from the feed's last state): at least once, never for a write the copy refused.
 */
export class ChangeFeedSink implements ChangeSink {
  readonly #feed: Pick<ChangeFeedRepository, 'append'>;
  constructor(feed: Pick<ChangeFeedRepository, 'append'>) {
    this.#feed = feed;
  }

  async applied(target: ChangeTarget, writes: readonly AppliedWrite[]): Promise<void> {
    if (writes.length === 0) return;
    await this.#feed.append(
      target.connectorId,
      target.entity,
      target.source,
      writes.map((write) => {
        if (write.kind !== 'upsert')
          return { key: write.key, version: write.version, contentHash: null, recordJson: null };
        // Serialized once: the hashed text is what the feed is sent (keys in order, kept so by the feed's json column).
        const recordJson = canonicalJson(write.record);
        return { key: write.key, version: write.version, contentHash: hashOf(recordJson), recordJson };
      }),
    );
  }
}

/** SHA-256 of the record's JSON with object keys in order: the same content hashes the same however it was keyed. */
function hashOf(json: string): string {
  return createHash('sha256').update(json).digest('base64url');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
