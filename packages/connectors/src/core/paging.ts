import type { ListPage, Params, ReadPage } from './define-connector.ts';
import { UpstreamError } from './errors.ts';

/**
 * Replication over a live list: follows `next` page by page. The checkpoint after a page is the params of the
 * following page (null after the last), so an interrupted run resumes exactly there.
 * A guard turns an upstream that hands out the same cursor twice into an error instead of an endless loop.
 */
export async function* readByListing(
  list: (params: Params) => Promise<ListPage>,
  first: Params,
  resume?: unknown,
): AsyncGenerator<ReadPage> {
  let params: Params = isParams(resume) ? resume : first;
  const seen = new Set<string>();
  for (;;) {
    const key = JSON.stringify(params);
    if (seen.has(key)) {
      throw new UpstreamError(
        'upstream_error',
        `the upstream returned the same page cursor twice (${key.slice(0, 200)})`,
        null,
        null,
      );
    }
    seen.add(key);
    const page = await list(params);
    yield { records: page.records, checkpoint: page.next };
    if (!page.next) return;
    params = page.next;
  }
}

function isParams(value: unknown): value is Params {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads `path` in a JSON body (`a.b.c`); undefined when any step is missing. */
export function at(body: unknown, path: string): unknown {
  let current = body;
  for (const key of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

export function recordsAt(body: unknown, path: string | null): Record<string, unknown>[] {
  const value = path === null ? body : at(body, path);
  if (!Array.isArray(value)) {
    throw new UpstreamError(
      'upstream_error',
      `the upstream answer has no record list at '${path ?? '(root)'}'`,
      null,
      null,
    );
  }
  return value.filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null);
}
