/** Latency statistics and table printing shared by the benchmarks. */

export interface Summary {
  readonly count: number;
  readonly errors: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  /** Completed requests per second over the phase's wall time. */
  readonly throughput: number;
}

export interface Samples {
  readonly latencies: number[];
  errors: number;
  elapsedMs: number;
}

export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

export function summarize(samples: Samples): Summary {
  const sorted = [...samples.latencies].sort((a, b) => a - b);
  return {
    count: sorted.length,
    errors: samples.errors,
    p50: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    p99: percentile(sorted, 0.99),
    throughput: samples.elapsedMs > 0 ? (sorted.length * 1000) / samples.elapsedMs : 0,
  };
}

/**
 * Runs `task(i)` from `concurrency` loops until `durationMs` has passed (or `maxCount` tasks started), timing
 * each one. A task that throws counts as an error (its latency is not recorded); the first error is kept.
 */
export async function runConcurrent(
  task: (i: number) => Promise<unknown>,
  options: { concurrency: number; durationMs: number; maxCount?: number },
): Promise<Samples & { firstError: unknown }> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: unknown;
  let next = 0;
  const started = performance.now();
  const deadline = started + options.durationMs;
  const loop = async () => {
    while (performance.now() < deadline && (options.maxCount === undefined || next < options.maxCount)) {
      const i = next++;
      const t0 = performance.now();
      try {
        await task(i);
        latencies.push(performance.now() - t0);
      } catch (error) {
        errors++;
        firstError ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, loop));
  return { latencies, errors, elapsedMs: performance.now() - started, firstError };
}

export function ms(value: number): string {
  return Number.isFinite(value) ? value.toFixed(value < 10 ? 2 : 1) : '-';
}

export function fixed(value: number, digits = 2): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '-';
}

/** A plain-text table: right-aligned columns except the first. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** The geometric mean: the average of ratios, where 2.0 and 0.5 cancel out (NaN when there are none). */
export function geometricMean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  return Math.exp(values.reduce((sum, value) => sum + Math.log(value), 0) / values.length);
}

export function verdict(pass: boolean): string {
  return pass ? 'PASS' : 'MISS';
}
