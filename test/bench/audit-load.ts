/**
 * The load generator of `pnpm bench:audit`, in its own process (forked by audit-bench.ts), so its own work is not
 * on the measured side's CPU budget in the bench process: on command it posts the same JSON call from
 * `concurrency` keep-alive loops for a while and reports every latency; or, paired, one call at a time to each side
 * in turn (the same moment's load on every side) and every side's latencies.
 */
import { KeepAliveClient } from './http-client.ts';
import { runConcurrent } from './stats.ts';

export interface AuditLoadCommand {
  readonly type: 'run';
  readonly url: string;
  readonly path: string;
  readonly body: string;
  readonly headers: Record<string, string>;
  readonly concurrency: number;
  readonly warmupMs: number;
  readonly durationMs: number;
}

/** One call to each of `urls` in turn (the first of each turn rotating), one at a time. */
export interface AuditPairedCommand {
  readonly type: 'paired';
  readonly urls: readonly string[];
  readonly path: string;
  readonly body: string;
  readonly headers: Record<string, string>;
  readonly warmupMs: number;
  readonly durationMs: number;
}

export interface AuditPairedResult {
  readonly type: 'paired-result';
  /** Per side (in the order of `urls`), the latency of each turn's call. */
  readonly latencies: number[][];
  readonly errors: number;
}

export interface AuditLoadResult {
  readonly type: 'result';
  readonly latencies: number[];
  readonly elapsedMs: number;
  readonly errors: number;
  readonly firstError: string | null;
}

async function paired(command: AuditPairedCommand): Promise<AuditPairedResult> {
  const clients = command.urls.map((url) => new KeepAliveClient(url, 1));
  const latencies = command.urls.map((): number[] => []);
  let errors = 0;
  for (const [measuring, durationMs] of [
    [false, command.warmupMs],
    [true, command.durationMs],
  ] as const) {
    const end = performance.now() + durationMs;
    for (let turn = 0; performance.now() < end; turn++) {
      const turnLatencies: number[] = [];
      let failed = false;
      for (let k = 0; k < clients.length; k++) {
        const side = (turn + k) % clients.length;
        const started = performance.now();
        const answer = await clients[side]!.post(command.path, command.body, command.headers);
        turnLatencies[side] = performance.now() - started;
        if (answer.status !== 200) failed = true;
      }
      // A turn counts whole or not at all: its latencies are compared side by side.
      if (failed) errors++;
      else if (measuring) for (const [side, latency] of turnLatencies.entries()) latencies[side]!.push(latency);
    }
  }
  for (const client of clients) client.close();
  return { type: 'paired-result', latencies, errors };
}

process.on('message', async (command: AuditLoadCommand | AuditPairedCommand | { type: 'stop' }) => {
  if (command.type === 'stop') return process.exit(0);
  if (command.type === 'paired') {
    process.send?.(await paired(command));
    return;
  }
  const client = new KeepAliveClient(command.url, command.concurrency);
  const call = async () => {
    const answer = await client.post(command.path, command.body, command.headers);
    if (answer.status !== 200) throw new Error(`${answer.status} ${answer.text.slice(0, 200)}`);
  };
  await runConcurrent(call, { concurrency: command.concurrency, durationMs: command.warmupMs });
  const samples = await runConcurrent(call, { concurrency: command.concurrency, durationMs: command.durationMs });
  client.close();
  const result: AuditLoadResult = {
    type: 'result',
    latencies: samples.latencies,
    elapsedMs: samples.elapsedMs,
    errors: samples.errors,
    firstError: samples.firstError === undefined ? null : String(samples.firstError),
  };
  process.send?.(result);
});
process.send?.({ type: 'ready' });
