import { type Attributes, context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

/*
 * Spans through the OpenTelemetry API only. Without a started SDK (OTEL_EXPORTER_OTLP_ENDPOINT unset) the API's
 * tracer is a no-op: each helper then costs a function call and an object or two, and nothing is recorded.
 */

const TRACER = 'conduit';

/** Runs `work` inside a span named `name`; an error marks the span and is rethrown. */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: () => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  return trace.getTracer(TRACER).startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** A span already finished (a query whose start and duration are known afterwards), under the active one. */
export function finishedSpan(
  name: string,
  attributes: Attributes,
  startMs: number,
  durationMs: number,
  failed: boolean,
): void {
  const span = trace.getTracer(TRACER).startSpan(name, { kind: SpanKind.CLIENT, attributes, startTime: startMs });
  if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end(startMs + durationMs);
}

/** Adds attributes to the active span (the answer's status, once known). */
export function spanAttributes(attributes: Attributes): void {
  trace.getActiveSpan()?.setAttributes(attributes);
}

/** The active trace as a W3C `traceparent`, to carry in a job's data; undefined when nothing is traced. */
export function currentTraceparent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** The active trace's id, for log lines; undefined when nothing is traced. */
export function currentTraceId(): string | undefined {
  const span = trace.getActiveSpan();
  return span?.isRecording() ? span.spanContext().traceId : undefined;
}

/**
 * Runs `work` in a span that continues the trace of `traceparent` (from a job's data or a request's header), or
 * starts a new one without it.
 */
export function continueTrace<T>(
  traceparent: string | undefined,
  name: string,
  attributes: Attributes,
  work: () => Promise<T>,
  kind: SpanKind = SpanKind.CONSUMER,
): Promise<T> {
  const parent = traceparent ? propagation.extract(context.active(), { traceparent }) : context.active();
  return context.with(parent, () => inSpan(name, attributes, work, kind));
}

export { SpanKind };
