import { setImmediate } from 'node:timers/promises';
import type { AuditEntriesRepository, AuditEntryRow, AuditQuery } from '@conduit/db';

/**
 * NDJSON exports one organization may run at once on one API instance: an export reads and serializes every entry
 * it matches, and a tenant running many at once took the API's CPU from every other tenant (docs/security.md).
 */
export const EXPORTS_PER_ORGANIZATION = 2;
/** Retry-After of an export refused for being over the organization's limit: exports take seconds. */
export const EXPORT_RETRY_SECONDS = 5;
/** Entries read from Postgres per query. */
const EXPORT_PAGE = 500;
/** Entries serialized between two turns of the event loop, so an export never holds the thread for long. */
const EXPORT_CHUNK = 100;

/** The exports running per organization in this process; each `take` that succeeds is given back once. */
export class ExportSlots {
  readonly #limit: number;
  readonly #running = new Map<string, number>();

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** A slot of the organization (the returned function gives it back; calling it again does nothing), or undefined. */
  take(organizationId: string): (() => void) | undefined {
    const running = this.#running.get(organizationId) ?? 0;
    if (running >= this.#limit) return undefined;
    this.#running.set(organizationId, running + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#running.get(organizationId) ?? 1) - 1;
      if (left > 0) this.#running.set(organizationId, left);
      else this.#running.delete(organizationId);
    };
  }
}

/**
 * Every entry matching `filter`, one JSON object per line, read a page at a time as the caller consumes them and
 * serialized EXPORT_CHUNK entries per turn of the event loop. `release` runs once when the export ends, fails or its
 * caller goes away (the stream is cancelled).
 */
export function ndjsonExport(
  entries: Pick<AuditEntriesRepository, 'page'>,
  filter: AuditQuery,
  view: (row: AuditEntryRow) => unknown,
  release: () => void,
): Response {
  let beforeId = filter.beforeId;
  let done = false;
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const rows = done ? [] : await entries.page({ ...filter, beforeId, limit: EXPORT_PAGE });
          if (rows.length === 0) {
            release();
            return controller.close();
          }
          if (rows.length < EXPORT_PAGE) done = true;
          beforeId = rows.at(-1)!.id;
          for (let start = 0; start < rows.length; start += EXPORT_CHUNK) {
            if (start > 0) await setImmediate();
            const lines = rows.slice(start, start + EXPORT_CHUNK).map((row) => `${JSON.stringify(view(row))}\n`);
            controller.enqueue(encoder.encode(lines.join('')));
          }
        } catch (error) {
          release();
          throw error;
        }
      },
      cancel: release,
    },
    // One page ahead at most: a slow reader holds a page in memory, not the whole trail.
    { highWaterMark: 1 },
  );
  return new Response(body, { status: 200, headers: { 'content-type': 'application/x-ndjson' } });
}
