import { Hono } from 'hono';
import { FaultInjector } from '../simulators/kit/faults.ts';
import { listen } from '../simulators/kit/server.ts';
import { generateOrbData, type OrbData, type OrbDataOptions, type OrbRecord } from '../simulators/orb/data.ts';
import { createOrbApp } from '../simulators/orb/simulator.ts';

export interface UpstreamStats {
  readonly pages: number;
  readonly cpuMs: number;
}

export interface BenchOrbUpstream {
  readonly url: string;
  readonly apiKey: string;
  readonly data: OrbData;
  /** Customers in the order the upstream serves them (newest first), i.e. the order the worker reads them. */
  readonly customersInOrder: readonly OrbRecord[];
  /** Listing pages served so far and this process's CPU time since it started (also GET /_bench/stats). */
  stats(): UpstreamStats;
  close(): Promise<void>;
}

/**
 * The Orb simulator's data (test/simulators/orb/data.ts) and routes, with the customers listing served from an
 * index: the simulator filters and scans every customer on each page (O(N) per page, ~0.9 s a page at 1,000,000
 * customers), which would make the upstream, not the worker, the thing measured. Same protocol: newest
 * `created_at` first (ties by id), `created_at[gte]`, `limit` <= 100, base64url(id) cursors. A customer by id is
 * looked up in a map (the simulator scans the array: O(N) per webhook re-read). Other routes and any other filter
 * go to the simulator itself.
 */
export async function startBenchOrbUpstream(options: OrbDataOptions): Promise<BenchOrbUpstream> {
  const apiKey = 'orb-bench-key';
  const data = generateOrbData(options);
  const simulator = createOrbApp(data, apiKey, new FaultInjector());
  const rows = newestFirst(data.customers);
  const instants = Float64Array.from(rows, (r) => Date.parse(r.created_at));
  const position = new Map<string, number>();
  for (const [i, r] of rows.entries()) position.set(r.id, i);
  const cpuAtStart = process.cpuUsage();
  let pages = 0;
  const stats = (): UpstreamStats => {
    const cpu = process.cpuUsage(cpuAtStart);
    return { pages, cpuMs: (cpu.user + cpu.system) / 1000 };
  };
  /** The first position whose instant is before `since` (rows are newest first). */
  const endFor = (since: number) => {
    let lo = 0;
    let hi = rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (instants[mid]! >= since) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };

  const app = new Hono();
  app.get('/v1/customers', (c) => {
    const query = new URL(c.req.url).searchParams;
    const known = new Set(['limit', 'cursor', 'created_at[gte]']);
    if ([...query.keys()].some((k) => !known.has(k))) return simulator.fetch(c.req.raw);
    if (c.req.header('authorization') !== `Bearer ${apiKey}`) return simulator.fetch(c.req.raw);
    const limit = Number(query.get('limit') ?? 20);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return simulator.fetch(c.req.raw);
    const gte = query.get('created_at[gte]');
    const end = gte === null ? rows.length : endFor(Date.parse(gte));
    const cursor = query.get('cursor');
    let start = 0;
    if (cursor) {
      const at = position.get(Buffer.from(cursor, 'base64url').toString());
      if (at === undefined || at >= end) return simulator.fetch(c.req.raw);
      start = at + 1;
    }
    const page = rows.slice(start, Math.min(start + limit, end));
    pages++;
    const hasMore = start + limit < end;
    return c.json({
      data: page,
      pagination_metadata: {
        has_more: hasMore,
        next_cursor: hasMore ? Buffer.from(page.at(-1)!.id).toString('base64url') : null,
      },
    });
  });
  app.get('/v1/customers/:id', (c) => {
    const at = position.get(c.req.param('id'));
    if (at === undefined || c.req.header('authorization') !== `Bearer ${apiKey}`) return simulator.fetch(c.req.raw);
    return c.json(rows[at]);
  });
  app.get('/_bench/stats', (c) => c.json(stats()));
  app.all('*', (c) => simulator.fetch(c.req.raw));

  const server = await listen(app);
  return { url: `${server.url}/v1`, apiKey, data, customersInOrder: rows, stats, close: server.close };
}

/** Customers in the order the upstream serves them: newest `created_at` first, ties by id. */
export function newestFirst(customers: readonly OrbRecord[]): OrbRecord[] {
  return [...customers].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
}
