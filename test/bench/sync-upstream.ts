import { startBenchOrbUpstream } from './orb-upstream.ts';

/**
 * bench:sync's upstream in its own process (so the bench's platform and the worker do not share its CPU, and its
 * own cost is measured apart, GET /_bench/stats): the indexed Orb customers listing of orb-upstream.ts over
 * SYNC_UPSTREAM_CUSTOMERS customers created from SYNC_UPSTREAM_FROM. Prints its URL and key as one JSON line, then
 * serves until killed.
 */
const upstream = await startBenchOrbUpstream({
  customers: Number(process.env.SYNC_UPSTREAM_CUSTOMERS ?? 1000),
  subscriptionsPerCustomer: 0,
  plans: 1,
  from: process.env.SYNC_UPSTREAM_FROM ?? '2023-01-01T00:00:00Z',
});
process.stdout.write(`${JSON.stringify({ url: upstream.url, apiKey: upstream.apiKey })}\n`);
process.on('SIGTERM', () => void upstream.close().then(() => process.exit(0)));
