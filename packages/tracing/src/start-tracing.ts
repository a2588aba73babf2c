/** What `startTracing` started: flush and stop it at shutdown. */
export interface Tracing {
  close(): Promise<void>;
}

/**
 * Starts the OpenTelemetry SDK when `endpoint` (OTEL_EXPORTER_OTLP_ENDPOINT) is set: spans batched and exported over
 * OTLP/HTTP (JSON) to `<endpoint>/v1/traces`, W3C trace context, the active span carried by AsyncLocalStorage, and
 * the upstream calls (Node's fetch, through undici's diagnostics channels) traced. Unset: nothing is loaded or
 * started, and every span of the code is the API's no-op. Call it once per process, first thing in main.
 * https://opentelemetry.io/docs/specs/otel/protocol/exporter/
 */
export async function startTracing(endpoint: string | undefined, serviceName: string): Promise<Tracing | undefined> {
  if (!endpoint) return undefined;
  const [api, { AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, exporter, resources, sdk, undici] =
    await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/context-async-hooks'),
      import('@opentelemetry/core'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/sdk-trace'),
      import('@opentelemetry/instrumentation-undici'),
    ]);
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        exporter: new exporter.OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` }),
        // Short: a trace is in the collector within a second of its end.
        scheduledDelayMillis: 500,
      }),
    ],
  });
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(provider);
  const upstream = new undici.UndiciInstrumentation();
  upstream.setTracerProvider(provider);
  upstream.enable();
  return {
    async close() {
      upstream.disable();
      // The last batch goes out if the collector answers; if it does not, those spans are dropped, and the process
      // still ends cleanly (the exporter's connection error must not become the process's exit).
      await provider.shutdown().catch(() => undefined);
    },
  };
}
