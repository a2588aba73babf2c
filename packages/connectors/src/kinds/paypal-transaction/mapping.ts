import type { ListPage, Params, ReadPage, UpstreamRecord } from '../../core/define-connector.ts';
import { UpstreamError } from '../../core/errors.ts';
import { at } from '../../core/paging.ts';
import { instantOf, MAX_TRANSACTION_RANGE_DAYS } from './catalog.ts';

const SECOND = 1000;
const DAY = 86_400 * SECOND;

/** PayPal dates with seconds and no fraction: `2024-01-31T00:00:00Z` (the reporting API wants seconds). */
export function paypalDate(ms: number): string {
  return new Date(Math.floor(ms / SECOND) * SECOND).toISOString().replace('.000Z', 'Z');
}

/** Instants of any form PayPal sends (`2024-02-10T00:01:56+0000`, `...Z`, `+01:00`); NaN when none. */
export function instant(value: unknown): number {
  if (typeof value !== 'string') return Number.NaN;
  const strict = instantOf(value);
  return Number.isNaN(strict) ? Date.parse(value) : strict;
}

/** Copies `paypal_*` fields to the catalog's neutral `provider_*` names, keeping the vendor's too. */
function withNeutralNames(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [key, v] of Object.entries(out)) {
    if (key.startsWith('paypal_') && !(`provider_${key.slice(7)}` in out)) out[`provider_${key.slice(7)}`] = v;
  }
  return out;
}

/**
 * GET /v1/reporting/transactions answers `transaction_details[]` of {transaction_info, payer_info, ...}.
 * The catalog lists transaction_id and transaction_updated_date at the top level too (and the catalog searches
 * transaction_initiation_date there): they are copied out of transaction_info. The catalog writes PayPal's
 * `paypal_account_id`, `paypal_reference_id(_type)` and cart_info `paypal_invoice_id` as `provider_*`.
 */
export function toTransaction(detail: UpstreamRecord): UpstreamRecord {
  const info = (detail.transaction_info ?? {}) as Record<string, unknown>;
  return {
    ...detail,
    transaction_info: withNeutralNames(detail.transaction_info),
    ...(detail.cart_info === undefined ? {} : { cart_info: withNeutralNames(detail.cart_info) }),
    transaction_id: info.transaction_id,
    transaction_updated_date: info.transaction_updated_date,
    transaction_initiation_date: info.transaction_initiation_date,
  };
}

interface Window {
  readonly start: number;
  readonly end: number;
}

/** Where a transactions replication stands: windows still to read (the first one at `page`), and what follows. */
interface TransactionsCheckpoint {
  readonly windows: Window[];
  readonly page: number;
  /** First second not yet planned into a window, and the end of the whole range. */
  readonly next_start: number;
  readonly until: number;
}

function isCheckpoint(value: unknown): value is TransactionsCheckpoint {
  const v = value as Partial<TransactionsCheckpoint> | null;
  return Array.isArray(v?.windows) && typeof v.page === 'number' && typeof v.next_start === 'number';
}

function isResultSetTooLarge(error: unknown): boolean {
  return (
    error instanceof UpstreamError &&
    error.upstreamStatus === 400 &&
    (error.upstreamBody ?? '').includes('RESULTSET_TOO_LARGE')
  );
}

/**
 * Replication of transactions from `since` to now. The reporting API takes at most 31 days per request
 * (https://developer.paypal.com/docs/api/transaction-search/v1/#transactions_get) and refuses a window of more
 * than 10,000 results with 400 RESULTSET_TOO_LARGE: such a window is split in two and each half read on its own.
 * Windows are inclusive to the second and do not overlap (the next starts one second after the previous end).
 */
export async function* readTransactions(
  list: (params: Params) => Promise<ListPage>,
  since: string,
  resume: unknown,
): AsyncGenerator<ReadPage> {
  const from = instant(since);
  let state: TransactionsCheckpoint = isCheckpoint(resume)
    ? resume
    : {
        windows: [],
        page: 1,
        next_start: Math.floor((Number.isNaN(from) ? 0 : from) / SECOND) * SECOND,
        until: Math.floor(Date.now() / SECOND) * SECOND,
      };
  for (;;) {
    let windows = state.windows;
    let nextStart = state.next_start;
    if (windows.length === 0) {
      if (nextStart > state.until) return;
      const end = Math.min(nextStart + MAX_TRANSACTION_RANGE_DAYS * DAY - SECOND, state.until);
      windows = [{ start: nextStart, end }];
      nextStart = end + SECOND;
    }
    const [window, ...later] = windows as [Window, ...Window[]];
    let page: ListPage;
    try {
      page = await list({
        start_date: paypalDate(window.start),
        end_date: paypalDate(window.end),
        fields: 'all',
        // Every transaction, not only the balance-affecting ones (the vendor's default Y).
        balance_affecting_records_only: 'N',
        page_size: 500,
        page: state.page,
      });
    } catch (error) {
      if (!isResultSetTooLarge(error) || window.end - window.start < 2 * SECOND) throw error;
      const middle = window.start + Math.floor((window.end - window.start) / 2 / SECOND) * SECOND;
      state = {
        ...state,
        windows: [{ start: window.start, end: middle }, { start: middle + SECOND, end: window.end }, ...later],
        page: 1,
        next_start: nextStart,
      };
      continue;
    }
    const more = page.next !== null;
    state = {
      windows: more ? [window, ...later] : later,
      page: more ? state.page + 1 : 1,
      next_start: nextStart,
      until: state.until,
    };
    const done = state.windows.length === 0 && state.next_start > state.until;
    yield { records: page.records, checkpoint: done ? null : state };
    if (done) return;
  }
}

/** Disputes: `updated_time_cut` (searchable, not a record field of the catalog) is the update time. */
export function toDispute(item: UpstreamRecord): UpstreamRecord {
  return { ...item, updated_time_cut: item.update_time };
}

/** Invoices: `last_update_time` (searchable) is detail.metadata.last_update_time brought to the top level. */
export function toInvoice(item: UpstreamRecord): UpstreamRecord {
  return { ...item, last_update_time: at(item, 'detail.metadata.last_update_time') ?? null };
}
