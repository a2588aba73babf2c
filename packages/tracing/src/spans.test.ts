import { describe, expect, it } from 'vitest';
import { continueTrace, currentTraceId, currentTraceparent, inSpan } from './spans.ts';
import { startTracing } from './start-tracing.ts';

describe('tracing off (OTEL_EXPORTER_OTLP_ENDPOINT unset)', () => {
  it('starts no SDK', async () => {
    expect(await startTracing(undefined, 'conduit-api')).toBeUndefined();
    expect(await startTracing('', 'conduit-api')).toBeUndefined();
  });

  it('runs the work in its spans, passes its errors through, and carries no trace', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const seen = await continueTrace(traceparent, 'job', {}, () =>
      inSpan('inner', {}, async () => [currentTraceparent(), currentTraceId()]),
    );
    // Without a propagator and a provider, nothing is recorded and nothing is carried to a job.
    expect(seen).toEqual([undefined, undefined]);
    await expect(inSpan('failing', {}, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  });
});
