import type { Hono } from 'hono';
import type { PaypalData } from './data.ts';
import { DAY, failure, invalid, pageParams, parse } from './http.ts';

/** Balances and the transaction search of PayPal's reporting API. */
export function mountReporting(app: Hono, data: PaypalData, maxResults: number): void {
  app.get('/v1/reporting/balances', (c) => {
    const q = new URL(c.req.url).searchParams;
    const currency = q.get('currency_code');
    const asOf = q.get('as_of_time');
    if (asOf !== null && Number.isNaN(Date.parse(asOf))) return invalid(c, 'as_of_time', 'INVALID_PARAMETER_SYNTAX');
    const lastRefresh = new Date(data.anchor - 3_600_000).toISOString().replace('.000Z', 'Z');
    return c.json({
      balances: data.balances.filter((b) => !currency || b.currency === currency),
      account_id: data.accountId,
      as_of_time: asOf ?? lastRefresh,
      last_refresh_time: lastRefresh,
    });
  });

  // https://developer.paypal.com/docs/api/transaction-search/v1/#transactions_get
  app.get('/v1/reporting/transactions', (c) => {
    const q = new URL(c.req.url).searchParams;
    const start = parse(q.get('start_date'));
    const end = parse(q.get('end_date'));
    if (Number.isNaN(start)) return invalid(c, 'start_date', 'INVALID_PARAMETER_SYNTAX');
    if (Number.isNaN(end)) return invalid(c, 'end_date', 'INVALID_PARAMETER_SYNTAX');
    if (end < start || end - start > 31 * DAY) return invalid(c, 'end_date', 'Date range is greater than 31 days');
    const paging = pageParams(c, 100, 500);
    if (paging.error) return paging.error;
    const fields = (q.get('fields') ?? 'transaction_info').split(',');
    // Every group of a transaction is one of its *_info objects; transaction_info always comes back.
    const wanted = (group: string) => fields.includes('all') || group === 'transaction_info' || fields.includes(group);
    const onlyBalance = (q.get('balance_affecting_records_only') ?? 'Y') === 'Y';
    const rows = data.transactions.filter((t) => {
      const info = t.transaction_info;
      const at = parse(info.transaction_updated_date);
      return (
        at >= start &&
        at <= end &&
        (!onlyBalance || t.balance_affecting) &&
        (!q.get('transaction_id') || info.transaction_id === q.get('transaction_id')) &&
        (!q.get('transaction_type') || info.transaction_event_code === q.get('transaction_type')) &&
        (!q.get('transaction_status') || info.transaction_status === q.get('transaction_status')) &&
        (!q.get('transaction_currency') ||
          (info.transaction_amount as { currency_code: string }).currency_code === q.get('transaction_currency'))
      );
    });
    if (rows.length > maxResults) {
      return c.json(
        failure(
          'RESULTSET_TOO_LARGE',
          'Result set size is greater than the maximum limit. Change the filter criteria and try again.',
        ),
        400,
      );
    }
    rows.sort(
      (a, b) => parse(a.transaction_info.transaction_updated_date) - parse(b.transaction_info.transaction_updated_date),
    );
    const totalPages = Math.max(1, Math.ceil(rows.length / paging.size));
    return c.json({
      transaction_details: rows
        .slice((paging.page - 1) * paging.size, paging.page * paging.size)
        .map(({ balance_affecting: _, ...groups }) =>
          Object.fromEntries(Object.entries(groups).filter(([g]) => wanted(g))),
        ),
      account_number: data.accountId,
      start_date: q.get('start_date'),
      end_date: q.get('end_date'),
      last_refreshed_datetime: new Date(data.anchor - 3_600_000).toISOString(),
      page: paging.page,
      total_items: rows.length,
      total_pages: totalPages,
      links: [],
    });
  });
}
