/** Environment of the worker process that bench:sync and bench:changes start, beside the platform's own. */

/**
 * The Orb rate limit the worker is told (CONNECTOR_RATE_LIMIT_ORB, docs/trusted-calls.md): Orb publishes none, so
 * without it the worker learns one, from 10 requests per second growing 5 % every 10 s, and the upstream budget,
 * not the write path, would be what the benchmark measures (pages of 100: ~1,000-2,000 records/s in the first
 * minutes). The simulator has no limit; BENCH_ORB_RATE_LIMIT=learn leaves the product's learning on.
 */
export function workerUpstreamEnv(): Record<string, string> {
  const limit = process.env.BENCH_ORB_RATE_LIMIT ?? '1000';
  return limit === 'learn' ? {} : { CONNECTOR_RATE_LIMIT_ORB: limit };
}
