import { subscribe } from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { promiseHooks } from 'node:v8';

/** One request's steps: µs since Node parsed its head, by step, in the order they happened. */
interface Trace {
  readonly startedAt: bigint;
  readonly steps: [string, number][];
  /** Promises made while it was the request in flight (each await of one is a microtask hop at least). */
  promises: number;
  /** Another request arrived before this one was answered: its steps are not its own alone, so it is not written. */
  overlapped: boolean;
}

let current: Trace | undefined;

/**
 * Marks a step of the request being traced (REQUEST_STEPS_FILE, docs/search-cost.md): a no-op unless the facility is
 * on and exactly one request is in flight. The first mark of a name counts.
 */
export function requestStep(name: string): void {
  if (current === undefined) return;
  if (current.steps.some(([step]) => step === name)) return;
  current.steps.push([name, Number(process.hrtime.bigint() - current.startedAt) / 1000]);
}

/**
 * REQUEST_STEPS_FILE: the wall time of each step of a request on its way through this process, one JSON line per
 * request answered while no other was in flight (requests at 1 in flight, as bench:search sends them with
 * BENCH_STEPS): `{"id": <its X-Request-Id>, "steps": [[step, µs since its head was parsed], ...], "promises": n}`
 * (the promises made meanwhile, counted by a V8 promise hook). Steps: marks of
 * the code (`requestStep`), the engine request written and its answer read (undici's diagnostics channels), the
 * answer handed to the socket (`answer written`) and Node's `finish`. Off (the default), nothing of it runs. Returns
 * what appends the lines kept so far (also done at exit).
 */
export function traceRequestSteps(server: Server, file: string): () => void {
  // Kept in memory and appended at exit (or every MiB): a write per request would be one more system call on the way.
  let lines = '';
  const flush = () => {
    if (lines !== '') appendFileSync(file, lines);
    lines = '';
  };
  process.on('exit', flush);
  let inFlight = 0;
  promiseHooks.onInit(() => {
    if (current) current.promises++;
  });
  subscribe('undici:request:bodySent', () => requestStep('engine request written'));
  subscribe('undici:request:headers', () => requestStep('engine answer started'));
  subscribe('undici:request:trailers', () => requestStep('engine answer read'));
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    inFlight++;
    if (current) current.overlapped = true;
    const trace: Trace | undefined =
      inFlight === 1 ? { startedAt: process.hrtime.bigint(), steps: [], promises: 0, overlapped: false } : undefined;
    if (trace) current = trace;
    const end = response.end;
    response.end = function tracedEnd(this: ServerResponse, ...args: Parameters<ServerResponse['end']>) {
      const ended = end.apply(this, args);
      requestStep('answer written');
      return ended;
    } as ServerResponse['end'];
    response.once('close', () => {
      inFlight--;
      if (!trace) return;
      if (current === trace) current = undefined;
      if (trace.overlapped) return;
      trace.steps.push(['closed', Number(process.hrtime.bigint() - trace.startedAt) / 1000]);
      const id = request.headers['x-request-id'] ?? null;
      lines += `${JSON.stringify({ id, steps: trace.steps, promises: trace.promises })}\n`;
      if (lines.length > 1 << 20) flush();
    });
    response.once('finish', () => requestStep('finish'));
  });
  return flush;
}
