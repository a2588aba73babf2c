import type { ConnectorContext, ReadPage, UpstreamRecord } from '../../core/define-connector.ts';
import { UpstreamError } from '../../core/errors.ts';
import { recordsAt } from '../../core/paging.ts';

/**
 * Zendesk Talk incremental exports (stats/incremental/calls, stats/incremental/legs) page by time, not by offset:
 * https://developer.zendesk.com/api-reference/voice/talk-api/incremental_exports/
 * - `next_page` is never null: it is the URL of the next export (start_time = this page's end_time), to be treated
 *   as opaque; `count` says whether more items are available now: fewer than a full page (1000) means caught up.
 * - start_time is inclusive, so the records updated in the end_time second come again on the next page: they are
 *   dropped by id here (the ids of that boundary second travel in the checkpoint, so a resumed run drops them too).
 */
export const EXPORT_PAGE_SIZE = 1000;

export interface ExportPage {
  readonly records: UpstreamRecord[];
  /** URL of the next export page, or null when the export has caught up (count < EXPORT_PAGE_SIZE). */
  readonly nextPage: string | null;
  /** Unix seconds: the start_time of the next page (the last record's update second). */
  readonly endTime: number | null;
}

interface ExportBody {
  next_page?: unknown;
  count?: unknown;
  end_time?: unknown;
}

export async function fetchExportPage(
  ctx: ConnectorContext,
  path: string,
  key: string,
  from: { readonly startTime: number } | { readonly url: string },
): Promise<ExportPage> {
  const body = await ctx.http.json<ExportBody>(
    'url' in from
      ? { path: from.url, signal: ctx.signal }
      : { path, query: { start_time: from.startTime }, signal: ctx.signal },
  );
  const records = recordsAt(body, key);
  const count = typeof body.count === 'number' ? body.count : records.length;
  const nextPage = count >= EXPORT_PAGE_SIZE && typeof body.next_page === 'string' ? body.next_page : null;
  return { records, nextPage, endTime: typeof body.end_time === 'number' ? body.end_time : null };
}

/** What resumes an export read: the next page URL and the ids already emitted for that page's first second. */
interface ExportCheckpoint {
  readonly next_page: string;
  readonly seen: string[];
}

function isCheckpoint(value: unknown): value is ExportCheckpoint {
  const v = value as Partial<ExportCheckpoint> | null;
  return typeof v?.next_page === 'string' && Array.isArray(v.seen);
}

function unixSeconds(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
}

/** Replication over an incremental export from `since` (ISO date-time), deduplicating the boundary repeats. */
export async function* readExport(
  ctx: ConnectorContext,
  path: string,
  key: string,
  since: string,
  resume: unknown,
): AsyncGenerator<ReadPage> {
  const startTime = unixSeconds(since) ?? 0;
  let from: { startTime: number } | { url: string } = isCheckpoint(resume)
    ? { url: resume.next_page }
    : { startTime: Math.max(0, startTime) };
  let seen = new Set(isCheckpoint(resume) ? resume.seen : []);
  for (;;) {
    const page = await fetchExportPage(ctx, path, key, from);
    const fresh = page.records.filter((r) => !seen.has(String(r.id)));
    if (!page.nextPage) {
      yield { records: fresh, checkpoint: null };
      return;
    }
    if (fresh.length === 0) {
      // A full page of records already emitted: more than a page shares one second, and Zendesk would hand out
      // the same page forever.
      throw new UpstreamError(
        'upstream_error',
        `the incremental export did not advance past ${page.endTime ?? 'its start_time'}`,
        null,
        null,
      );
    }
    // The records of the end_time second repeat on the next page; when the page did not leave the second it
    // started in, the ids emitted earlier in that second still count.
    const boundary = page.records.filter((r) => page.endTime === null || unixSeconds(r.updated_at) === page.endTime);
    const next = new Set(boundary.map((r) => String(r.id)));
    if (boundary.length === page.records.length) {
      for (const id of seen) next.add(id);
    }
    seen = next;
    from = { url: page.nextPage };
    yield { records: fresh, checkpoint: { next_page: page.nextPage, seen: [...seen] } satisfies ExportCheckpoint };
  }
}
