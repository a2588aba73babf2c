/**
 * `node test/bench/tracing-off-bench.ts`: what the search path pays for tracing when it is off (no
 * OTEL_EXPORTER_OTLP_ENDPOINT, so no SDK): the engine call's span (`inSpan`, the OpenTelemetry API's no-op) and the
 * logger's trace id lookup per line (`currentTraceId`), in ns per call, medians of 5 rounds of 1,000,000 calls
 * each. With the endpoint unset the API mounts no request span at all, so these are the whole of it.
 */
import { currentTraceId, inSpan } from '@conduit/tracing';

const CALLS = 1_000_000;
const ROUNDS = 5;
const work = () => Promise.resolve(1);

async function nsPerCall(call: () => unknown): Promise<number> {
  for (let i = 0; i < CALLS / 20; i++) await call();
  const started = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) await call();
  return Number(process.hrtime.bigint() - started) / CALLS;
}

const rounds: { bare: number; span: number; traceId: number }[] = [];
for (let round = 0; round < ROUNDS; round++) {
  rounds.push({
    bare: await nsPerCall(work),
    span: await nsPerCall(() => inSpan('opensearch.search', { 'db.system': 'opensearch' }, work)),
    traceId: await nsPerCall(currentTraceId),
  });
}
const median = (pick: (r: (typeof rounds)[number]) => number) => rounds.map(pick).sort((a, b) => a - b)[ROUNDS >> 1]!;
const bare = median((r) => r.bare);
const span = median((r) => r.span);
console.log(
  JSON.stringify({
    awaited_call_ns: Math.round(bare),
    with_noop_span_ns: Math.round(span),
    span_adds_ns: Math.round(span - bare),
    trace_id_lookup_ns: Math.round(median((r) => r.traceId)),
  }),
);
