/**
 * The load generator of `pnpm bench:audit`, in its own process (forked by audit-bench.ts), so its own work is not
 * on the measured side's CPU budget in the bench process: on command it posts the same JSON call from
 * `concurrency` keep-alive loops for a while and reports every latency.
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

export interface AuditLoadResult {
  readonly type: 'result';
  readonly latencies: number[];
  readonly elapsedMs: number;
  readonly errors: number;
  readonly firstError: string | null;
}

process.on('message', async (command: AuditLoadCommand | { type: 'stop' }) => {
  if (command.type === 'stop') return process.exit(0);
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
