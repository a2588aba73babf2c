import { Conduit } from '@conduit/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnector } from '../harness/create-connector.ts';
import { orbSettingsFrom } from '../harness/orb-connector.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import type { OrbRecord } from '../simulators/orb/data.ts';
import { type OrbSimulator, startOrbSimulator } from '../simulators/orb/simulator.ts';

/**
 * SQL over the copy (docs/sql.md), through HTTP against the real services and an Orb simulator: every construct of
 * the subset, checked against the simulator's own data after start_date, and against `search` where one exists.
 */
const START_DATE = '2024-01-01T00:00:00Z';

type Page = {
  data: Record<string, unknown>[];
  meta: {
    columns: { name: string; type: string; approximate?: { precision_threshold: number } }[];
    has_more: boolean;
    cursor: string | null;
    took_ms: number | null;
    synced_at: string | null;
    total?: { value: number; exact: boolean };
  };
};
type Problem = {
  code: string;
  detail: string;
  errors: { path: string; message: string; line: number; column: number }[];
};

describe('SQL over the copy, through the API', () => {
  let sim: OrbSimulator;
  let platform: TestPlatform;
  let connectorId: string;
  let invoices: OrbRecord[];

  const sql = async (query: string, extra: { limit?: number; cursor?: string } = {}) => {
    const response = await platform.call('POST', `/api/v1/integrations/connectors/${connectorId}/sql`, {
      query,
      ...extra,
    });
    return { status: response.status, body: (await response.json()) as Page & Problem };
  };
  /** Every page of a query, following cursors; no page but the last may be short. */
  const all = async (query: string, limit: number) => {
    const rows: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 500; i++) {
      const { status, body } = await sql(query, { limit, ...(cursor ? { cursor } : {}) });
      expect(status, JSON.stringify(body)).toBe(200);
      rows.push(...body.data);
      if (!body.meta.has_more) return rows;
      expect(body.data.length).toBeLessThanOrEqual(limit);
      cursor = body.meta.cursor!;
    }
    throw new Error('paging did not end');
  };
  const search = async (params: unknown) => {
    const response = await platform.call('POST', `/api/v1/integrations/connectors/${connectorId}/execute`, {
      entity: 'invoices',
      action: 'search',
      params,
    });
    return (await response.json()) as { data: Record<string, unknown>[] };
  };
  const statusOf = async (entity: string) => {
    const view = await platform.call('GET', `/api/v1/integrations/connectors/${connectorId}`);
    const body = (await view.json()) as {
      entities: Record<string, { running: boolean; last_success_at: string | null }>;
    };
    return body.entities[entity]!;
  };
  const cents = (v: unknown) => BigInt(String(v).replace('.', ''));
  const money = (c: bigint) => `${c / 100n}.${String(c % 100n).padStart(2, '0')}`.replace(/\.?0+$/, '');
  /** A SUM of totals: it keeps the largest scale summed (docs/sql.md), and every total has two decimals. */
  const summed = (c: bigint) => `${c / 100n}.${String(c % 100n).padStart(2, '0')}`;

  beforeAll(async () => {
    sim = await startOrbSimulator({ customers: 40 });
    const after = (r: OrbRecord) => Date.parse(r.created_at) >= Date.parse(START_DATE);
    const [a, b] = sim.data.invoices.filter(after);
    Object.assign(a!, { total: '8387.12', status: 'paid' });
    Object.assign(b!, { total: '976.08', status: 'paid' });
    invoices = sim.data.invoices.filter(after);
    platform = await startTestPlatform({ overrides: { baseUrls: { ORB: sim.url }, tokenUrls: {} } });
    connectorId = await createConnector(platform, {
      customer_name: 'acme',
      name: 'billing',
      ...orbSettingsFrom(sim.apiKey, START_DATE),
    });
    await eventually(async () => {
      const view = await platform.call('GET', `/api/v1/integrations/connectors/${connectorId}`);
      const body = (await view.json()) as { entities: Record<string, { status: string }> };
      return ['invoices', 'customers'].every((e) => body.entities[e]?.status === 'ready') ? body : undefined;
    });
  }, 120_000);

  afterAll(async () => {
    await platform?.close();
    await sim?.close();
  });

  it('selects columns with aliases, ordered by an amount as money, with LIMIT and the columns typed', async () => {
    const { status, body } = await sql(
      "SELECT id, total AS amount, invoice_date FROM invoices WHERE status = 'paid' ORDER BY total DESC, id LIMIT 5",
    );
    expect(status).toBe(200);
    expect(body.meta.columns).toEqual([
      { name: 'id', type: 'string' },
      { name: 'amount', type: 'decimal' },
      { name: 'invoice_date', type: 'datetime' },
    ]);
    const expected = invoices
      .filter((r) => r.status === 'paid')
      .sort((x, y) => Number(cents(y.total) - cents(x.total)) || (x.id < y.id ? -1 : 1))
      .slice(0, 5)
      .map((r) => ({ id: r.id, amount: r.total, invoice_date: r.invoice_date }));
    expect(body.data).toEqual(expected);
    expect(body.meta.total).toEqual({ value: 5, exact: true });
    expect(body.meta.synced_at).toEqual(expect.any(String));
  });

  it('SELECT * answers the records search answers, paged by cursor', async () => {
    const rows = await all(
      "SELECT * FROM invoices WHERE total > 100 AND status <> 'void' ORDER BY invoice_date DESC",
      7,
    );
    const searched = await search({
      query: { filter: { gt: { total: 100 }, neq: { status: 'void' } }, sort: [{ invoice_date: 'desc' }] },
      limit: 10_000,
    });
    expect(rows).toEqual(searched.data);
    expect(rows.length).toBe(invoices.filter((r) => Number(r.total) > 100 && r.status !== 'void').length);
  });

  it('answers rows by record keys (a multi-get, as search does) with the same records as search', async () => {
    const ids = invoices.slice(0, 5).map((r) => String(r.id));
    const { body } = await sql(`SELECT id, total FROM invoices WHERE id IN (${ids.map((id) => `'${id}'`).join(', ')})`);
    const searched = await search({ query: { filter: { in: { id: ids } } }, fields: ['id', 'total'] });
    expect(body.data).toEqual(searched.data);
    expect(body.data.map((r) => r.id).sort()).toEqual([...ids].sort());
  });

  it('WHERE takes = <> < <= > >=, IN, NOT IN, LIKE, ILIKE, IS [NOT] NULL, BETWEEN, AND, OR, NOT', async () => {
    const ids = async (where: string) =>
      (await all(`SELECT id FROM invoices WHERE ${where} ORDER BY id`, 1000)).map((r) => r.id);
    const expected = (f: (r: OrbRecord) => boolean) =>
      invoices
        .filter(f)
        .map((r) => r.id)
        .sort();
    const t = (r: OrbRecord) => cents(r.total);
    expect(await ids("total >= 976.08 AND total <= '8387.12'")).toEqual(
      expected((r) => t(r) >= 97608n && t(r) <= 838712n),
    );
    expect(await ids('total < 976.08 OR total > 8387.12')).toEqual(expected((r) => t(r) < 97608n || t(r) > 838712n));
    expect(await ids('total BETWEEN 100 AND 200')).toEqual(expected((r) => t(r) >= 10000n && t(r) <= 20000n));
    expect(await ids("status IN ('paid', 'void')")).toEqual(
      expected((r) => ['paid', 'void'].includes(String(r.status))),
    );
    expect(await ids("status NOT IN ('paid', 'void')")).toEqual(
      expected((r) => !['paid', 'void'].includes(String(r.status))),
    );
    expect(await ids("NOT (status = 'paid')")).toEqual(expected((r) => r.status !== 'paid'));
    expect(await ids('memo IS NULL')).toEqual(expected((r) => r.memo === null || r.memo === undefined));
    expect(await ids('memo IS NOT NULL')).toEqual(expected((r) => r.memo !== null && r.memo !== undefined));
    expect(await ids("memo LIKE 'thank%'")).toEqual(expected((r) => /^thank/i.test(String(r.memo ?? ''))));
    expect(await ids("memo ILIKE '%BUSINESS'")).toEqual(expected((r) => /business$/i.test(String(r.memo ?? ''))));
    expect(await ids("invoice_date > '2024-06-01T02:00:00+02:00'")).toEqual(
      expected((r) => Date.parse(String(r.invoice_date)) > Date.parse('2024-06-01T00:00:00Z')),
    );
  });

  it('fuzzy(col, text) and keyword(col, text) are conditions', async () => {
    const fuzzy = await all("SELECT id FROM invoices WHERE fuzzy(memo, 'thnak busines') ORDER BY id", 1000);
    const keyword = await all("SELECT id FROM invoices WHERE keyword(memo, 'business nothing') ORDER BY id", 1000);
    const expected = invoices
      .filter((r) => r.memo)
      .map((r) => r.id)
      .sort();
    expect(fuzzy.map((r) => r.id)).toEqual(expected);
    expect(keyword.map((r) => r.id)).toEqual(expected);
  });

  it('aggregates without GROUP BY: COUNT(*), COUNT(col), COUNT(DISTINCT col), exact SUM, AVG, MIN, MAX', async () => {
    const { status, body } = await sql(
      "SELECT COUNT(*) AS n, COUNT(memo) AS memos, COUNT(DISTINCT status) AS statuses, SUM(total) AS revenue, MIN(total) AS least, MAX(invoice_date) AS latest FROM invoices WHERE status <> 'void'",
    );
    expect(status).toBe(200);
    const kept = invoices.filter((r) => r.status !== 'void');
    const sum = kept.reduce((s, r) => s + cents(r.total), 0n);
    const least = kept.map((r) => cents(r.total)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))[0]!;
    const latest = Math.max(...kept.map((r) => Date.parse(String(r.invoice_date))));
    expect(body.data).toEqual([
      {
        n: kept.length,
        memos: kept.filter((r) => r.memo).length,
        statuses: new Set(kept.map((r) => r.status)).size,
        revenue: summed(sum),
        least: money(least),
        latest: new Date(latest).toISOString(),
      },
    ]);
    expect(body.meta.columns.find((c) => c.name === 'statuses')).toEqual({
      name: 'statuses',
      type: 'integer',
      approximate: { precision_threshold: 40000 },
    });
    const avg = await sql('SELECT AVG(total) AS a FROM invoices');
    // Millionths, rounded half away from zero (all amounts are positive here).
    const n = BigInt(invoices.length);
    const micros = (invoices.reduce((s, r) => s + cents(r.total), 0n) * 10_000n * 2n + n) / (2n * n);
    const text = `${micros / 1_000_000n}.${String(micros % 1_000_000n).padStart(6, '0')}`.replace(/\.?0+$/, '');
    expect(avg.body.data).toEqual([{ a: text }]);
  });

  it('GROUP BY pages by cursor through every group, one per page, never cut short', async () => {
    const rows = await all(
      "SELECT DATE_TRUNC('day', invoice_date) AS day, COUNT(*) AS n FROM invoices GROUP BY 1 ORDER BY day",
      3,
    );
    const counts = new Map<string, number>();
    for (const r of invoices) {
      const d = new Date(String(r.invoice_date));
      const day = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())).toISOString();
      counts.set(day, (counts.get(day) ?? 0) + 1);
    }
    const expected = [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, n]) => ({ day, n }));
    expect(expected.length).toBeGreaterThan(10);
    expect(rows).toEqual(expected);
    const desc = await all('SELECT status, COUNT(*) AS n FROM invoices GROUP BY status ORDER BY status DESC', 1);
    expect(desc.map((r) => r.status)).toEqual([...new Set(invoices.map((r) => String(r.status)))].sort().reverse());
  });

  it('HAVING holds across pages, and ORDER BY an aggregate sorts every group', async () => {
    const byDay = new Map<string, bigint>();
    for (const r of invoices) {
      const day = String(r.invoice_date).slice(0, 7);
      byDay.set(day, (byDay.get(day) ?? 0n) + cents(r.total));
    }
    const months = await all(
      "SELECT DATE_TRUNC('month', invoice_date) AS month, SUM(total) AS revenue FROM invoices GROUP BY month HAVING SUM(total) > 20000 ORDER BY month",
      2,
    );
    const expectedMonths = [...byDay]
      .filter(([, c]) => c > 2_000_000n)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([m, c]) => ({ month: `${m}-01T00:00:00.000Z`, revenue: summed(c) }));
    expect(months).toEqual(expectedMonths);

    const ranked = await all(
      'SELECT status, COUNT(*) AS n, SUM(total) AS revenue FROM invoices GROUP BY status HAVING COUNT(*) >= 2 ORDER BY SUM(total) DESC LIMIT 3',
      1,
    );
    const per = new Map<string, { n: number; c: bigint }>();
    for (const r of invoices) {
      const e = per.get(String(r.status)) ?? { n: 0, c: 0n };
      per.set(String(r.status), { n: e.n + 1, c: e.c + cents(r.total) });
    }
    const expected = [...per]
      .filter(([, e]) => e.n >= 2)
      .sort(([, x], [, y]) => Number(y.c - x.c))
      .slice(0, 3)
      .map(([status, e]) => ({ status, n: e.n, revenue: summed(e.c) }));
    expect(ranked).toEqual(expected);
  });

  it('answers 400 invalid_sql at the line and column, with "did you mean" for tables and columns', async () => {
    const table = await sql('SELECT id\nFROM invoice');
    expect(table.status).toBe(400);
    expect(table.body.code).toBe('invalid_sql');
    expect(table.body.errors[0]).toMatchObject({ path: '/query', line: 2, column: 6 });
    expect(table.body.errors[0]!.message).toContain("Did you mean 'invoices'");

    const column = await sql('SELECT id, stauts FROM invoices');
    expect(column.body.errors[0]).toMatchObject({ line: 1, column: 12 });
    expect(column.body.errors[0]!.message).toContain("Did you mean 'status'");

    const syntax = await sql('SELECT id FRM invoices');
    expect(syntax.status).toBe(400);
    expect(syntax.body.errors[0]).toMatchObject({ line: 1 });

    const typed = await sql("SELECT id FROM invoices WHERE total > 'lots'");
    expect(typed.body.errors[0]).toMatchObject({ line: 1, column: 31 });

    const grouped = await sql('SELECT status, total FROM invoices GROUP BY status');
    expect(grouped.body.errors[0]!.message).toContain('must appear in GROUP BY');
  });

  it("the typed client's sql() and sqlAll() answer the same pages", async () => {
    const conduit = new Conduit({
      baseUrl: platform.url,
      clientId: platform.clientId,
      clientSecret: platform.clientSecret,
    });
    const orb = conduit.connector(connectorId, 'Orb');
    const query = 'SELECT "status", COUNT(*) AS n FROM invoices GROUP BY "status" ORDER BY "status"';
    const page = await orb.sql(query, { limit: 2 });
    expect(page.meta.columns.map((c) => c.name)).toEqual(['status', 'n']);
    const rows: Record<string, unknown>[] = [];
    for await (const row of orb.sqlAll(query, { limit: 1 })) rows.push(row);
    expect(rows).toEqual(await all(query, 1000));
    expect(rows.slice(0, 2)).toEqual(page.data);
  });

  it('accepts only one SELECT', async () => {
    for (const query of [
      "DELETE FROM invoices WHERE status = 'paid'",
      'SELECT id FROM invoices; SELECT id FROM customers',
      'SELECT id FROM invoices UNION SELECT id FROM customers',
      "UPDATE invoices SET status = 'paid'",
      'SELECT i.id FROM invoices i JOIN customers c ON c.id = i.id',
      'SELECT id FROM (SELECT id FROM invoices) x',
    ]) {
      const { status, body } = await sql(query);
      expect(status, query).toBe(400);
      expect(body.code, query).toBe('invalid_sql');
    }
    const { status, body } = await sql('SELECT id FROM invoices', { cursor: 'forged.cursor' });
    expect(status).toBe(400);
    expect(body.code).toBe('invalid_cursor');
  });

  it('refuses a WHERE over the search cost budget with 400 query_too_costly at its line and column', async () => {
    // Patterns with no run of three literal characters scan every record: three of them are over the budget.
    const { status, body } = await sql(
      "SELECT id FROM invoices\nWHERE memo LIKE '%a%b%' OR memo LIKE '%c%d%' OR memo LIKE '%e%f%'",
    );
    expect(status).toBe(400);
    expect(body.code).toBe('query_too_costly');
    expect(body.errors[0]).toMatchObject({ path: '/query', line: 2 });
    const cheap = await sql("SELECT id FROM invoices WHERE memo LIKE '%abc%'");
    expect(cheap.status).toBe(200);
  });

  it('never counts a record the copy removed: GROUP BY and COUNT(*) agree with search after a deletion', async () => {
    const removed = invoices[invoices.length - 1]!;
    sim.data.invoices.splice(sim.data.invoices.indexOf(removed), 1);
    const before = await statusOf('invoices');
    const sync = await platform.call('POST', `/api/v1/integrations/connectors/${connectorId}/sync`, {
      entity: 'invoices',
      mode: 'full',
    });
    expect(sync.status).toBe(202);
    await eventually(async () => {
      const now = await statusOf('invoices');
      return now.last_success_at !== before.last_success_at && !now.running ? now : undefined;
    });
    const kept = invoices.length - 1;
    const count = await sql('SELECT COUNT(*) AS n FROM invoices');
    expect(Number(count.body.data[0]!.n)).toBe(kept);
    const groups = await all('SELECT status, COUNT(*) AS n FROM invoices GROUP BY status', 1000);
    expect(groups.reduce((sum, g) => sum + Number(g.n), 0)).toBe(kept);
    const byKey = await sql(`SELECT id FROM invoices WHERE id = '${removed.id}'`);
    expect(byKey.body.data).toEqual([]);
    const searched = (await search({ query: {}, limit: 0 })) as unknown as { meta: { total: { value: number } } };
    expect(searched.meta.total.value).toBe(kept);
  });
});
