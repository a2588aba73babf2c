/**
 * The query kinds of the search benchmark: each variant is our `search` params plus the equivalent Postgres
 * query over the peer table (see postgres-peer.ts). The raw OpenSearch body is compiled from the params.
 */
import { INVOICE_SPAN, invoiceId } from './invoice-records.ts';
import { PEER_TABLE, type PeerQuery, peerInstant, peerQuery, placeholders, SCOPE } from './postgres-peer.ts';

export type SearchParamsValue = {
  query: Record<string, unknown>;
  limit: number;
  cursor?: string;
  aggregate?: Record<string, unknown>;
};

export interface Variant {
  readonly params: SearchParamsValue;
  readonly peer: PeerQuery;
  /** The same question in SQL (POST .../sql with `limit` = params.limit when it is a page of records). */
  readonly sql: string;
}

export interface QueryKind {
  readonly name: string;
  readonly variants: readonly Variant[];
}

const VARIANTS = 256;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const TYPOS = ['thnak you', 'busines', 'overgae', 'prepiad commitment', 'enterprize seats', 'tranfser'];
const WORDS = ['business', 'overage API', 'prepaid', 'wire transfer', 'seats', 'remise partenaire'];

export function queryKinds(docs: number, connectionId: string): QueryKind[] {
  let seed = 42;
  const random = () => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return seed / 4_294_967_296;
  };
  const anyIndex = () => Math.floor(random() * docs);
  const instant = (offsetMs = 0) => {
    const at = INVOICE_SPAN.fromMs + Math.floor(random() * (INVOICE_SPAN.toMs - INVOICE_SPAN.fromMs - 2 * 86_400_000));
    return new Date(at + offsetMs).toISOString();
  };
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  const kind = (name: string, make: () => Variant): QueryKind => ({
    name,
    variants: Array.from({ length: VARIANTS }, make),
  });
  const simple = (filter: Record<string, unknown>, where: (p: (v: unknown) => string) => string, limit = 10) => {
    const values: unknown[] = [];
    const sql = where(placeholders(values));
    return {
      params: { query: { filter }, limit },
      peer: peerQuery(connectionId, sql, values, limit),
      sql: `SELECT * FROM invoices WHERE ${sqlWhere(filter)}`,
    };
  };
  const contains = (field: string, value: unknown) => JSON.stringify({ [field]: value });
  const aggregate = (
    filter: Record<string, unknown>,
    aggregations: Record<string, unknown>,
    sql: string,
    values: unknown[],
    ours: (where: string) => string,
  ): Variant => ({
    params: { query: { filter }, aggregate: aggregations, limit: 0 },
    peer: { text: sql, values: [connectionId, ...values] },
    sql: ours(sqlWhere(filter)),
  });

  return [
    kind('eq id', () => {
      const id = invoiceId(anyIndex());
      // The record key is Nango's external_id column (primary key); that is how a peer looks up by id.
      return simple({ eq: { id } }, (p) => `external_id = ${p(id)}`);
    }),
    kind('in 10 ids', () => {
      const ids = Array.from({ length: 10 }, () => invoiceId(anyIndex()));
      // As for `eq id`: the primary key answers an id lookup (ten GIN containment probes OR-ed were seconds).
      return simple({ in: { id: ids } }, (p) => `external_id = any(${p(ids)}::text[])`);
    }),
    // Many matches, few returned: 60% of all records match, 10 come back (does our cost grow with matches?).
    kind('in 2 statuses', () => {
      const statuses = pick([
        ['paid', 'issued'],
        ['paid', 'draft'],
        ['paid', 'void'],
      ]);
      return simple({ in: { status: statuses } }, (p) =>
        statuses.map((status) => `json @> ${p(contains('status', status))}::jsonb`).join(' or '),
      );
    }),
    kind('range 6h', () => {
      const from = instant();
      const to = plus(from, 6 * HOUR_MS);
      return simple(
        { and: [{ gte: { invoice_date: from } }, { lt: { invoice_date: to } }] },
        (p) => `json->>'invoice_date' >= ${p(peerInstant(from))} and json->>'invoice_date' < ${p(peerInstant(to))}`,
      );
    }),
    kind('like url', () => {
      const pattern = `%/invoices/${Math.floor(anyIndex() / 2)}-%`;
      return simple(
        { like: { hosted_invoice_url: pattern } },
        (p) => `json->>'hosted_invoice_url' ilike ${p(pattern)}`,
      );
    }),
    kind('and/or/not', () => {
      const from = instant();
      const to = plus(from, 24 * HOUR_MS);
      const word = pick(WORDS);
      return simple(
        {
          and: [
            { in: { status: ['paid', 'issued'] } },
            { gte: { invoice_date: from } },
            { lt: { invoice_date: to } },
            { or: [{ eq: { memo: null } }, { keyword: { memo: word } }] },
            { not: { eq: { amount_due: '0.00' } } },
          ],
        },
        (p) =>
          `(json @> ${p(contains('status', 'paid'))}::jsonb or json @> ${p(contains('status', 'issued'))}::jsonb)` +
          ` and json->>'invoice_date' >= ${p(peerInstant(from))} and json->>'invoice_date' < ${p(peerInstant(to))}` +
          ` and (json->>'memo' is null or to_tsvector('simple', coalesce(json->>'memo', '')) @@ plainto_tsquery('simple', ${p(word)}))` +
          ` and not (json @> ${p(contains('amount_due', '0.00'))}::jsonb)`,
      );
    }),
    kind('fuzzy memo', () => {
      const typo = pick(TYPOS);
      return simple({ fuzzy: { memo: typo } }, (p) => `${p(typo)} <% (json->>'memo')`);
    }),
    kind('keyword memo', () => {
      const word = pick(WORDS);
      return simple(
        { keyword: { memo: word } },
        (p) => `to_tsvector('simple', coalesce(json->>'memo', '')) @@ plainto_tsquery('simple', ${p(word)})`,
      );
    }),
    kind('eq status', () => {
      const status = pick(['draft', 'issued', 'paid', 'void']);
      return simple({ eq: { status } }, (p) => `json @> ${p(contains('status', status))}::jsonb`, 100);
    }),
    // Aggregations (params.aggregate, limit 0): counts by status, a decimal sum, a daily histogram, each over
    // a 30-day range; the peer answers with GROUP BY / sum over the same rows.
    kind('agg count_by', () => {
      const from = instant();
      const to = plus(from, 30 * DAY_MS);
      return aggregate(
        { and: [{ gte: { invoice_date: from } }, { lt: { invoice_date: to } }] },
        { by_status: { count_by: 'status', size: 10 } },
        `select json->>'status' as key, count(*) from ${PEER_TABLE} where ${SCOPE}
           and json->>'invoice_date' >= $2 and json->>'invoice_date' < $3 group by 1 order by 2 desc limit 10`,
        [peerInstant(from), peerInstant(to)],
        (where) => `SELECT status, COUNT(*) AS n FROM invoices WHERE ${where} GROUP BY status ORDER BY n DESC LIMIT 10`,
      );
    }),
    kind('agg sum', () => {
      const from = instant();
      const to = plus(from, 30 * DAY_MS);
      return aggregate(
        { and: [{ eq: { status: 'paid' } }, { gte: { invoice_date: from } }, { lt: { invoice_date: to } }] },
        { revenue: { sum: 'total' } },
        `select sum((json->>'total')::numeric) from ${PEER_TABLE} where ${SCOPE} and json @> '{"status":"paid"}'
           and json->>'invoice_date' >= $2 and json->>'invoice_date' < $3`,
        [peerInstant(from), peerInstant(to)],
        (where) => `SELECT SUM(total) AS revenue FROM invoices WHERE ${where}`,
      );
    }),
    kind('agg histogram', () => {
      const from = instant();
      const to = plus(from, 30 * DAY_MS);
      return aggregate(
        { and: [{ gte: { invoice_date: from } }, { lt: { invoice_date: to } }] },
        { daily: { histogram: 'invoice_date', interval: 'day' } },
        `select date_trunc('day', (json->>'invoice_date')::timestamptz at time zone 'UTC') as key, count(*)
           from ${PEER_TABLE} where ${SCOPE} and json->>'invoice_date' >= $2 and json->>'invoice_date' < $3
           group by 1 order by 1`,
        [peerInstant(from), peerInstant(to)],
        (where) =>
          `SELECT DATE_TRUNC('day', invoice_date) AS day, COUNT(*) AS n FROM invoices WHERE ${where} GROUP BY 1 ORDER BY 1`,
      );
    }),
    kind('sort date', () => {
      const status = pick(['issued', 'paid']);
      const due = instant();
      const direction = random() < 0.5 ? 'asc' : 'desc';
      const values: unknown[] = [];
      const p = placeholders(values);
      const where = `json @> ${p(contains('status', status))}::jsonb and json->>'due_date' >= ${p(peerInstant(due))}`;
      return {
        params: {
          query: {
            filter: { and: [{ eq: { status } }, { gte: { due_date: due } }] },
            sort: [{ invoice_date: direction }],
          },
          limit: 10,
        },
        peer: peerQuery(connectionId, where, values, 10, `json->>'invoice_date' ${direction}, `),
        sql: `SELECT * FROM invoices WHERE status = '${status}' AND due_date >= '${due}' ORDER BY invoice_date ${direction}`,
      };
    }),
  ];
}

function plus(iso: string, deltaMs: number): string {
  return new Date(Date.parse(iso) + deltaMs).toISOString();
}

/** A search filter of the kinds above as a WHERE condition (docs/sql.md), for the SQL side of each kind. */
function sqlWhere(filter: Record<string, unknown>): string {
  const literal = (v: unknown) => (typeof v === 'string' ? `'${v.replaceAll("'", "''")}'` : String(v));
  const parts = Object.entries(filter).flatMap(([op, arg]): string[] => {
    if (op === 'and' || op === 'or') {
      return [`(${(arg as Record<string, unknown>[]).map(sqlWhere).join(` ${op.toUpperCase()} `)})`];
    }
    if (op === 'not') return [`NOT (${sqlWhere(arg as Record<string, unknown>)})`];
    return Object.entries(arg as Record<string, unknown>).map(([field, value]) => {
      if (op === 'eq') return value === null ? `${field} IS NULL` : `${field} = ${literal(value)}`;
      if (op === 'in') return `${field} IN (${(value as unknown[]).map(literal).join(', ')})`;
      if (op === 'gte') return `${field} >= ${literal(value)}`;
      if (op === 'lt') return `${field} < ${literal(value)}`;
      if (op === 'like') return `${field} LIKE ${literal(value)}`;
      if (op === 'fuzzy' || op === 'keyword') return `${op}(${field}, ${literal(value)})`;
      throw new Error(`no SQL for ${op}`);
    });
  });
  return parts.join(' AND ');
}
