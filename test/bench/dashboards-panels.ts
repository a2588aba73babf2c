/**
 * The dashboard of `pnpm bench:dashboards`: ten panels over the Orb invoices of one quarter (invoice_date from
 * WINDOW_FROM), as a billing team's wall screen shows them: counts, sums, a histogram, the latest payments and SQL
 * GROUP BYs. Each panel has its request, a canonical form of its answer, and an oracle that computes the same form
 * from the records themselves, so a served answer can be checked against the truth without asking the engine.
 *
 * Changes of the benchmark are invoices paid (status issued -> paid, amount_due 0, paid_at now): one paid inside the
 * window touches the panels over issued or paid invoices and leaves the drafts' and the voids' as they were; one
 * paid before the window touches none.
 */

export const WINDOW_FROM = '2025-04-01T00:00:00Z';
export const WINDOW_FROM_MS = Date.parse(WINDOW_FROM);

/** What the panels read of an invoice. Amounts in cents. */
export interface InvoiceFacts {
  readonly id: string;
  readonly status: string;
  readonly total: number;
  readonly amountDue: number;
  readonly memo: string | null;
  readonly invoiceDateMs: number;
  readonly paidAtMs: number | null;
}

export function factsOf(record: Record<string, unknown>): InvoiceFacts {
  return {
    id: String(record.id),
    status: String(record.status),
    total: cents(record.total),
    amountDue: cents(record.amount_due),
    memo: typeof record.memo === 'string' ? record.memo : null,
    invoiceDateMs: Date.parse(String(record.invoice_date)),
    paidAtMs: typeof record.paid_at === 'string' ? Date.parse(record.paid_at) : null,
  };
}

/** An answer as the API sends it (search or SQL). */
export interface PanelAnswer {
  readonly data: Record<string, unknown>[];
  readonly meta: { readonly aggregations?: Record<string, unknown>; readonly [key: string]: unknown };
}

export interface Panel {
  readonly name: string;
  /** POST .../{connector}/<route> */
  readonly route: 'execute' | 'sql';
  /** The request body, as JSON text. */
  readonly body: string;
  /** The answer reduced to what the oracle computes (JSON text: equal texts = equal answers). */
  canonical(answer: PanelAnswer): string;
  /** The same form computed from the window's invoices. */
  oracle(window: readonly InvoiceFacts[]): string;
}

/** The panel whose rows show each payment (its id and paid_at): where a change becomes visible. */
export const LATEST_PAYMENTS = 'latest_payments';

const inWindow = { gte: { invoice_date: WINDOW_FROM } };
const search = (name: string, filter: unknown, params: Record<string, unknown>, sort?: unknown) => ({
  name,
  route: 'execute' as const,
  body: JSON.stringify({
    entity: 'invoices',
    action: 'search',
    params: { query: sort === undefined ? { filter } : { filter, sort }, ...params },
  }),
});
const sql = (name: string, where: string, select: string, groupBy = '') => ({
  name,
  route: 'sql' as const,
  body: JSON.stringify({
    query: `SELECT ${select} FROM invoices WHERE invoice_date >= '${WINDOW_FROM}'${where}${groupBy}`,
  }),
});
const withStatus = (status: string) => ({ and: [inWindow, { eq: { status } }] });
const aggregation = (answer: PanelAnswer, name: string) => answer.meta.aggregations?.[name];
const text = (value: unknown) => JSON.stringify(value);

export const PANELS: readonly Panel[] = [
  {
    ...search('by_status', inWindow, { limit: 0, aggregate: { by_status: { count_by: 'status' } } }),
    canonical: (a) => text(buckets(aggregation(a, 'by_status'), String)),
    oracle: (w) => text(countBy(w, (r) => r.status)),
  },
  {
    ...search('revenue', withStatus('paid'), { limit: 0, aggregate: { revenue: { sum: 'total' } } }),
    canonical: (a) => text(cents(metricValue(aggregation(a, 'revenue')))),
    oracle: (w) => text(sum(w.filter((r) => r.status === 'paid').map((r) => r.total))),
  },
  {
    ...search('outstanding', withStatus('issued'), {
      limit: 0,
      aggregate: { due: { sum: 'amount_due' }, largest: { max: 'amount_due' } },
    }),
    canonical: (a) =>
      text([cents(metricValue(aggregation(a, 'due'))), centsOrNull(metricValue(aggregation(a, 'largest')))]),
    oracle: (w) => {
      const due = w.filter((r) => r.status === 'issued').map((r) => r.amountDue);
      return text([sum(due), due.length === 0 ? null : Math.max(...due)]);
    },
  },
  {
    ...search('weekly', inWindow, { limit: 0, aggregate: { weekly: { histogram: 'invoice_date', interval: 'week' } } }),
    canonical: (a) => text(buckets(aggregation(a, 'weekly'), instant)),
    oracle: (w) => text(countBy(w, (r) => weekStart(r.invoiceDateMs))),
  },
  {
    ...search(LATEST_PAYMENTS, withStatus('paid'), { limit: 10, fields: ['id', 'paid_at', 'total'] }, [
      { paid_at: 'desc' },
    ]),
    canonical: (a) => text(a.data.map((r) => [r.id, instant(r.paid_at), cents(r.total)])),
    oracle: (w) =>
      text(
        w
          .filter((r) => r.status === 'paid' && r.paidAtMs !== null)
          // Ties by record key, as every sort of the search language (docs/search.md).
          .sort((x, y) => y.paidAtMs! - x.paidAtMs! || (x.id < y.id ? -1 : 1))
          .slice(0, 10)
          .map((r) => [r.id, r.paidAtMs, r.total]),
      ),
  },
  {
    ...search('void_memos', withStatus('void'), { limit: 0, aggregate: { memos: { count_by: 'memo' } } }),
    canonical: (a) => text(buckets(aggregation(a, 'memos'), String)),
    oracle: (w) =>
      text(
        countBy(
          w.filter((r) => r.status === 'void' && r.memo !== null),
          (r) => r.memo!,
        ),
      ),
  },
  {
    ...search('void_range', withStatus('void'), {
      limit: 0,
      aggregate: { largest: { max: 'total' }, smallest: { min: 'total' } },
    }),
    canonical: (a) =>
      text([centsOrNull(metricValue(aggregation(a, 'largest'))), centsOrNull(metricValue(aggregation(a, 'smallest')))]),
    oracle: (w) => {
      const totals = w.filter((r) => r.status === 'void').map((r) => r.total);
      return text(totals.length === 0 ? [null, null] : [Math.max(...totals), Math.min(...totals)]);
    },
  },
  {
    ...sql('status_sql', '', 'status, COUNT(*) AS invoices, SUM(total) AS amount', ' GROUP BY status'),
    canonical: (a) =>
      text(
        a.data
          .map((r) => [String(r.status), Number(r.invoices), cents(r.amount)] as const)
          .sort((x, y) => (x[0] < y[0] ? -1 : 1)),
      ),
    oracle: (w) => {
      const groups = new Map<string, [number, number]>();
      for (const r of w) {
        const group = groups.get(r.status) ?? [0, 0];
        group[0]++;
        group[1] += r.total;
        groups.set(r.status, group);
      }
      return text([...groups].sort(([x], [y]) => (x < y ? -1 : 1)).map(([status, [n, amount]]) => [status, n, amount]));
    },
  },
  {
    ...sql(
      'drafts_by_month_sql',
      " AND status = 'draft'",
      "DATE_TRUNC('month', invoice_date) AS month, COUNT(*) AS invoices",
      ' GROUP BY month',
    ),
    canonical: (a) =>
      text(a.data.map((r) => [instant(r.month), Number(r.invoices)] as const).sort((x, y) => x[0] - y[0])),
    oracle: (w) =>
      text(
        countBy(
          w.filter((r) => r.status === 'draft'),
          (r) => monthStart(r.invoiceDateMs),
        ),
      ),
  },
  {
    ...sql(
      'large_issued_sql',
      " AND status = 'issued' AND total >= 5000",
      'COUNT(*) AS invoices, SUM(amount_due) AS due',
    ),
    canonical: (a) => text(a.data.map((r) => [Number(r.invoices), cents(r.due)])),
    oracle: (w) => {
      const due = w.filter((r) => r.status === 'issued' && r.total >= 500_000).map((r) => r.amountDue);
      return text([[due.length, sum(due)]]);
    },
  },
];

/** A decimal (string or number) in cents; a sum over nothing (null) is 0. */
export function cents(value: unknown): number {
  return value === null || value === undefined ? 0 : Math.round(Number(value) * 100);
}

function centsOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : cents(value);
}

function metricValue(metric: unknown): unknown {
  return (metric as { value?: unknown } | undefined)?.value;
}

/** An instant (ISO text or epoch ms) as epoch ms. */
export function instant(value: unknown): number {
  return typeof value === 'number' ? value : Date.parse(String(value));
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/** `[key, count]` of every non-empty bucket, by key: the order and the empty buckets are the API's presentation. */
function buckets<K extends string | number>(value: unknown, key: (raw: unknown) => K): [K, number][] {
  const list = (value ?? []) as { key: unknown; count: number }[];
  return list
    .filter((b) => b.count > 0)
    .map((b): [K, number] => [key(b.key), b.count])
    .sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
}

function countBy<K extends string | number>(
  records: readonly InvoiceFacts[],
  key: (r: InvoiceFacts) => K,
): [K, number][] {
  const counts = new Map<K, number>();
  for (const r of records) counts.set(key(r), (counts.get(key(r)) ?? 0) + 1);
  return [...counts].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
}

/** UTC weeks start on Monday (docs/search.md, histogram). */
function weekStart(ms: number): number {
  const day = new Date(ms);
  const sinceMonday = (day.getUTCDay() + 6) % 7;
  return Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() - sinceMonday);
}

function monthStart(ms: number): number {
  const day = new Date(ms);
  return Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), 1);
}
