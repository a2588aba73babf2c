import { cpus } from 'node:os';

const QUIET_CORES = 0.15;
const WINDOW_MS = 2000;
const TIMEOUT_MS = 180_000;

/** Cores' worth of CPU the whole machine spent over `windowMs` (every process, this one included). */
async function busyCores(windowMs: number): Promise<number> {
  const busy = () => cpus().reduce((sum, { times }) => sum + times.user + times.nice + times.sys + times.irq, 0);
  const before = busy();
  await new Promise((resolve) => setTimeout(resolve, windowMs));
  return (busy() - before) / windowMs;
}

/**
 * Waits for a 2 s window in which the machine keeps at most 0.15 of a core busy (3 minutes at most). A load leaves
 * work behind that outlasts it (the engine's merges and flushes, Postgres writing out pages), and a latency
 * measured through it pays for that work.
 */
export async function settle(): Promise<{ waitedMs: number; busyCores: number; settled: boolean }> {
  const started = performance.now();
  for (;;) {
    const busy = await busyCores(WINDOW_MS);
    const waitedMs = performance.now() - started;
    if (busy <= QUIET_CORES) return { waitedMs, busyCores: busy, settled: true };
    if (waitedMs >= TIMEOUT_MS) return { waitedMs, busyCores: busy, settled: false };
  }
}
