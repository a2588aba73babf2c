import type { Params, UpstreamRecord } from '../../core/define-connector.ts';
import type { QueryValue, UpstreamHttpClient } from '../../core/http-client.ts';
import { recordsAt } from '../../core/paging.ts';

export interface LinkTarget {
  readonly url: string;
  readonly results: boolean;
  readonly cursor: string;
}

/**
 * Sentry pagination (https://docs.sentry.io/api/pagination/): a `Link` header with one entry per direction,
 * `<url>; rel="next"; results="true"; cursor="0:100:0"`. `results="false"` means there is no such page,
 * even though the entry (and its cursor) is always present.
 */
export function parseLinkHeader(header: string | null): Record<string, LinkTarget> {
  const out: Record<string, LinkTarget> = {};
  if (!header) return out;
  for (const part of header.split(/,\s*(?=<)/)) {
    const url = /^\s*<([^>]*)>/.exec(part)?.[1];
    const attributes = Object.fromEntries([...part.matchAll(/;\s*([a-z]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    const rel = attributes.rel;
    if (url === undefined || !rel) continue;
    out[rel] = { url, results: attributes.results === 'true', cursor: attributes.cursor ?? '' };
  }
  return out;
}

export interface SentryPage {
  readonly records: UpstreamRecord[];
  /** The cursor of the next page, or null when Sentry says there are no more results. */
  readonly nextCursor: string | null;
}

/** One page of a Sentry list: the bare-array body and the next cursor from the Link header. */
export async function fetchSentryPage(
  http: UpstreamHttpClient,
  path: string,
  query: Readonly<Record<string, QueryValue>>,
  signal?: AbortSignal,
): Promise<SentryPage> {
  const response = await http.send({ path, query, ...(signal ? { signal } : {}) });
  const next = parseLinkHeader(response.headers.get('link')).next;
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { records: recordsAt(body, null), nextCursor: next?.results && next.cursor ? next.cursor : null };
}

/** Caller params minus the ones that go into the path. */
export function queryOf(params: Params, pathParams: readonly string[]): Record<string, QueryValue> {
  const query: Record<string, QueryValue> = {};
  for (const [key, value] of Object.entries(params)) {
    if (pathParams.includes(key) || value === undefined) continue;
    query[key] = typeof value === 'boolean' ? String(value) : (value as QueryValue);
  }
  return query;
}
