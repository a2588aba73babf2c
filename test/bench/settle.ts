import { cpus } from 'node:os';

/** Cores' worth of CPU the whole machine spent over `windowMs` (every process, this one included). */
async function busyCores(windowMs: number): Promise<number> {
  const busy = () => cpus().reduce((sum, { times }) => sum + times.user + times.nice + times.sys + times.irq, 0);
  const before = busy();
  await new Promise((resolve) => setTimeout(resolve, windowMs));
  return (busy() - before) / windowMs;
}

/**
 * Waits until the machine is quiet: no window of `windowMs` with more than `maxBusyCores` cores busy, or
 * `timeoutMs` passed. A load leaves work behind that outlasts it (Postgres writing out the pages of a million rows,
 * the engine's merges and flushes), and a latency measured through it pays for that work.
 */
export async function settle(
  options: { maxBusyCores?: number; windowMs?: number; timeoutMs?: number } = {},
): Promise<{ waitedMs: number; busyCores: number; settled: boolean }> {
  const { maxBusyCores = 0.15, windowMs = 2000, timeoutMs = 180_000 } = options;
  const started = performance.now();
  for (;;) {
    const busy = await busyCores(windowMs);
    const waitedMs = performance.now() - started;
    if (busy <= maxBusyCores) return { waitedMs, busyCores: busy, settled: true };
    if (waitedMs >= timeoutMs) return { waitedMs, busyCores: busy, settled: false };
  }
}
