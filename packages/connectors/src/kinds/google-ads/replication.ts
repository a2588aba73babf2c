import type { ContextOf, ReadPage, ReadRequest, UpstreamRecord } from '../../core/define-connector.ts';
import { UpstreamError } from '../../core/errors.ts';
import { pathOf } from '../../core/http-client.ts';
import type { googleAdsCatalog } from './catalog.ts';
import { type SearchBody, toRecord } from './mapping.ts';
import { type EntityQuery, listQuery, windowQuery } from './queries.ts';

export type GoogleAdsContext = ContextOf<typeof googleAdsCatalog>;
export type GoogleAdsCredentials = GoogleAdsContext['credentials'];

/** `customers/{cid}/googleAds:search` (https://developers.google.com/google-ads/api/rest/reference/rest/v23/customers.googleAds/search). */
export async function search(
  ctx: GoogleAdsContext,
  customerId: string,
  query: string,
  pageToken: string | undefined,
): Promise<SearchBody> {
  const body = await ctx.http.json<SearchBody | undefined>({
    method: 'POST',
    // `googleAds:search` is a custom method: the colon must stay literal, so it is not passed through pathOf.
    path: `${pathOf('customers', customerId)}/googleAds:search`,
    json: { query, ...(pageToken === undefined ? {} : { pageToken }) },
    // A GAQL query is a read, though it travels as a POST.
    idempotent: true,
    signal: ctx.signal,
  });
  return body ?? {};
}

/** `customers:listAccessibleCustomers`: the customers the OAuth user reaches directly, as `customers/<id>`. */
export async function accessibleCustomers(ctx: GoogleAdsContext): Promise<{ resourceNames: string[] }> {
  // `./` keeps `customers:` from being read as a URL scheme.
  const body = await ctx.http.json<{ resourceNames?: unknown }>({
    path: './customers:listAccessibleCustomers',
    signal: ctx.signal,
  });
  const names = Array.isArray(body?.resourceNames) ? body.resourceNames.filter((n) => typeof n === 'string') : [];
  return { resourceNames: names };
}

/** Days per replication window: bounded responses, and a failed window costs little to redo. */
const WINDOW_DAYS = 30;
const DAY_MS = 86_400_000;

interface Window {
  readonly from: string;
  readonly to: string;
}

/** The day of `since` as written (YYYY-MM-DD prefix), else its UTC day. */
function dayOf(since: string): string {
  return /^\d{4}-\d{2}-\d{2}/.exec(since)?.[0] ?? new Date(since).toISOString().slice(0, 10);
}

/** Consecutive inclusive windows from `since` to today (UTC), oldest first. */
export function dayWindows(since: string, now: number = Date.now()): Window[] {
  const windows: Window[] = [];
  const today = Date.parse(`${new Date(now).toISOString().slice(0, 10)}T00:00:00Z`);
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  for (let start = Date.parse(`${dayOf(since)}T00:00:00Z`); start <= today; start += WINDOW_DAYS * DAY_MS) {
    windows.push({ from: day(start), to: day(Math.min(start + (WINDOW_DAYS - 1) * DAY_MS, today)) });
  }
  return windows;
}

/** Where an interrupted read continues: the slice (customer, window start) and its next upstream page. */
interface Checkpoint {
  readonly customer: string;
  readonly from: string | null;
  /** The next page of that slice; null when the slice is done. */
  readonly pageToken: string | null;
}

function isCheckpoint(value: unknown): value is Checkpoint {
  const v = value as Partial<Checkpoint> | null;
  return typeof v === 'object' && v !== null && typeof v.customer === 'string';
}

/**
 * Replication of one entity over every customer: `config.customer_ids` (the catalog's place for them), or all
 * accessible customers when the connector has none. Date-segmented entities are read in day windows from `since`
 * (`WHERE segments.date BETWEEN ... ORDER BY segments.date`, the GAQL shape incremental reads need: SELECTing
 * segments.date requires a finite range); label entities are read whole (full refresh).
 */
export async function* readEntity(
  ctx: GoogleAdsContext,
  spec: EntityQuery,
  request: ReadRequest,
): AsyncGenerator<ReadPage> {
  const customers =
    ctx.config.customer_ids ??
    (await accessibleCustomers(ctx)).resourceNames
      .map((name) => name.replace(/^customers\//, ''))
      .filter((id) => /^\d{10}$/.test(id));
  const windows: (Window | null)[] = spec.byDate ? dayWindows(request.since) : [null];
  const slices = customers.flatMap((customer) => windows.map((window) => ({ customer, window })));

  let start = 0;
  let token: string | undefined;
  if (isCheckpoint(request.resume)) {
    const resume = request.resume;
    const index = slices.findIndex((s) => s.customer === resume.customer && (s.window?.from ?? null) === resume.from);
    // A slice that no longer exists (customer removed from config): start over; writes are idempotent.
    if (index >= 0) {
      start = resume.pageToken === null ? index + 1 : index;
      token = resume.pageToken ?? undefined;
    }
  }

  for (let i = start; i < slices.length; i++) {
    const { customer, window } = slices[i]!;
    const query = window ? windowQuery(spec, window.from, window.to) : listQuery(spec);
    const seen = new Set<string>();
    for (;;) {
      const body = await search(ctx, customer, query, token);
      const next = body.nextPageToken ?? null;
      const records: UpstreamRecord[] = (body.results ?? []).map((row) => toRecord(row, spec.main, spec.byDate));
      const last = next === null && i === slices.length - 1;
      yield { records, checkpoint: last ? null : { customer, from: window?.from ?? null, pageToken: next } };
      if (next === null) break;
      if (seen.has(next)) {
        throw new UpstreamError('upstream_error', 'the upstream returned the same page token twice', null, null);
      }
      seen.add(next);
      token = next;
    }
    token = undefined;
  }
}
