import type { UpstreamSpec } from '../../core/catalog.ts';
import type { ConnectorContext, Params, ReadPage } from '../../core/define-connector.ts';
import { UpstreamError } from '../../core/errors.ts';
import { listDeclared } from '../../core/listing.ts';

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

/**
 * Replication of a Zendesk Talk incremental export (the catalog declares its list) from `since` (ISO date-time).
 * start_time is inclusive, so the records updated in the end_time second come again on the next page: they are
 * dropped by id here (the ids of that boundary second travel in the checkpoint, so a resumed run drops them too).
 * That is Zendesk's own, not paging.
 */
export async function* readExport(
  ctx: ConnectorContext,
  spec: UpstreamSpec,
  since: string,
  resume: unknown,
): AsyncGenerator<ReadPage> {
  // end_time (unix seconds: the next page's start_time, the last record's update second) is not part of Meta: only
  // replication asks for it.
  const withEndTime: UpstreamSpec = { ...spec, meta: { end_time: 'end_time' } };
  let params: Params = isCheckpoint(resume)
    ? { next_page: resume.next_page }
    : { start_time: Math.max(0, unixSeconds(since) ?? 0) };
  let seen = new Set(isCheckpoint(resume) ? resume.seen : []);
  for (;;) {
    const page = await listDeclared(ctx, withEndTime, params);
    const nextPage = typeof page.meta.next_page === 'string' ? page.meta.next_page : null;
    const endTime = typeof page.meta.end_time === 'number' ? page.meta.end_time : null;
    const fresh = page.records.filter((r) => !seen.has(String(r.id)));
    if (!nextPage) {
      yield { records: fresh, checkpoint: null };
      return;
    }
    if (fresh.length === 0) {
      // A full page of records already emitted: more than a page shares one second, and Zendesk would hand out
      // the same page forever.
      throw new UpstreamError(
        'upstream_error',
        `the incremental export did not advance past ${endTime ?? 'its start_time'}`,
        null,
        null,
      );
    }
    // The records of the end_time second repeat on the next page; when the page did not leave the second it
    // started in, the ids emitted earlier in that second still count.
    const boundary = page.records.filter((r) => endTime === null || unixSeconds(r.updated_at) === endTime);
    const next = new Set(boundary.map((r) => String(r.id)));
    if (boundary.length === page.records.length) {
      for (const id of seen) next.add(id);
    }
    seen = next;
    params = { next_page: nextPage };
    yield { records: fresh, checkpoint: { next_page: nextPage, seen: [...seen] } satisfies ExportCheckpoint };
  }
}
