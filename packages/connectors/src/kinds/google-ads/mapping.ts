import type { UpstreamRecord } from '../../core/define-connector.ts';
import { ConnectorError } from '../../core/errors.ts';
import { isPlainObject } from '../../core/values.ts';
import { googleAdsRowKey } from './catalog.ts';

/**
 * A googleAds:search row as a record: the upstream's camelCase nested row (int64 values stay JSON strings, as
 * sent; indexing coerces them), plus
 * - `_row_key`, the catalog's synthetic record key of segmented rows (catalog.ts, googleAdsRowKey), computed from the
 *   main resource; label associations and labels are keyed by their own resourceName and get none;
 * - the catalog's neutral names beside the vendor's: customer.remarketingSetting.providerGlobalSiteTag
 *   (googleGlobalSiteTag) and campaign.networkSettings.targetProviderSearch (targetGoogleSearch).
 */
export function toRecord(row: UpstreamRecord, main: string, keyed: boolean): UpstreamRecord {
  const out: UpstreamRecord = { ...row };
  alias(out, 'customer', 'remarketingSetting', 'googleGlobalSiteTag', 'providerGlobalSiteTag');
  alias(out, 'campaign', 'networkSettings', 'targetGoogleSearch', 'targetProviderSearch');
  if (keyed) {
    const key = googleAdsRowKey(out, main);
    if (key !== null) out._row_key = key;
  }
  return out;
}

function alias(row: UpstreamRecord, resource: string, group: string, vendor: string, neutral: string): void {
  const top = row[resource];
  if (!isPlainObject(top) || !isPlainObject(top[group]) || !(vendor in top[group])) return;
  const inner = top[group];
  row[resource] = { ...top, [group]: { ...inner, [neutral]: inner[vendor] } };
}

// ---------------------------------------------------------------------------------------------------------------
// Page tokens. Since v17 googleAds:search has no pageSize: every page holds up to 10,000 rows, and sending
// pageSize fails with PAGE_SIZE_NOT_SUPPORTED (https://developers.google.com/google-ads/api/docs/release-notes#v17).
// The catalog still offers pageSize ≤ 10000, so the connector cuts upstream pages client-side. When it cuts, the
// next_page_token it hands out is its own: the upstream token of the page being cut plus the offset into it
// (`gads1.<base64url JSON>`). A plain upstream token passes through unchanged.
// ---------------------------------------------------------------------------------------------------------------

const PREFIX = 'gads1.';

export interface PagePosition {
  /** The upstream pageToken of the page to read (undefined: the first page). */
  readonly upstream: string | undefined;
  /** Rows of that page already returned. */
  readonly offset: number;
}

export function encodePageToken(position: PagePosition): string {
  return (
    PREFIX + Buffer.from(JSON.stringify({ t: position.upstream ?? null, o: position.offset })).toString('base64url')
  );
}

export function decodePageToken(token: string | undefined): PagePosition {
  if (token === undefined) return { upstream: undefined, offset: 0 };
  if (!token.startsWith(PREFIX)) return { upstream: token, offset: 0 };
  try {
    const parsed = JSON.parse(Buffer.from(token.slice(PREFIX.length), 'base64url').toString()) as {
      t?: unknown;
      o?: unknown;
    };
    const upstream = parsed.t === null ? undefined : parsed.t;
    if (
      (upstream === undefined || typeof upstream === 'string') &&
      Number.isInteger(parsed.o) &&
      Number(parsed.o) >= 0
    ) {
      return { upstream, offset: Number(parsed.o) };
    }
  } catch {
    // falls through to the error below
  }
  throw new ConnectorError('invalid_params', 'invalid params', [
    { path: '/params/pageToken', message: 'is not a page token this connector handed out' },
  ]);
}

export interface SearchBody {
  readonly results?: UpstreamRecord[];
  readonly nextPageToken?: string;
}

/**
 * One list page from one upstream page: the rows from `offset`, at most `pageSize` of them, and the token that
 * continues right after the last row returned (null at the end).
 */
export function cutPage(
  body: SearchBody,
  position: PagePosition,
  pageSize: number | undefined,
): { rows: UpstreamRecord[]; nextToken: string | null } {
  const all = Array.isArray(body.results) ? body.results : [];
  const end = pageSize === undefined ? all.length : Math.min(all.length, position.offset + pageSize);
  const rows = all.slice(position.offset, end);
  if (end < all.length) return { rows, nextToken: encodePageToken({ upstream: position.upstream, offset: end }) };
  return { rows, nextToken: body.nextPageToken ?? null };
}
