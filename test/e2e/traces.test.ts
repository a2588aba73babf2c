import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiProcess } from '../harness/api-process.ts';
import { orbSettingsFrom } from '../harness/orb-connector.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { WorkerProcess } from '../harness/worker-process.ts';
import { type OrbSimulator, startOrbSimulator } from '../simulators/orb/simulator.ts';
import { orbCustomerEvent } from '../simulators/orb/webhooks.ts';

/**
 * OpenTelemetry traces (docs/operations.md, "Traces"): the API and the worker, each in its own process with
 * OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP/HTTP receiver this test runs (JSON protocol), export one trace per
 * search (the request, the engine, Postgres and Redis inside it) and one trace per webhook-triggered re-read, from the
 * API's request to the worker's job (traceparent in the job's data) and its upstream call.
 */
interface ExportedSpan {
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly startNs: bigint;
  readonly durationMs: number;
  readonly attributes: Record<string, unknown>;
}

/** A minimal OTLP/HTTP receiver: decodes the JSON export requests (ExportTraceServiceRequest) it is sent. */
class OtlpReceiver {
  readonly spans: ExportedSpan[] = [];
  readonly contentTypes = new Set<string>();
  #server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.#server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        this.contentTypes.add(String(request.headers['content-type']));
        if (request.url === '/v1/traces') this.#decode(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server!.address() as AddressInfo).port}`;
  }

  #decode(body: OtlpRequest): void {
    for (const resourceSpans of body.resourceSpans ?? []) {
      const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name']);
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            startNs: BigInt(span.startTimeUnixNano),
            durationMs: Number(BigInt(span.endTimeUnixNano) - BigInt(span.startTimeUnixNano)) / 1e6,
            attributes: attributesOf(span.attributes),
          });
        }
      }
    }
  }

  trace(traceId: string): ExportedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }
}

interface OtlpAttribute {
  key: string;
  value: Record<string, unknown>;
}
interface OtlpRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        startTimeUnixNano: string;
        endTimeUnixNano: string;
        attributes?: OtlpAttribute[];
      }[];
    }[];
  }[];
}

function attributesOf(list: readonly OtlpAttribute[] = []): Record<string, unknown> {
  return Object.fromEntries(list.map((a) => [a.key, Object.values(a.value)[0]]));
}

/** The trace as the note shows it: each span's service, name and duration, under its parent, in start order. */
function outline(spans: readonly ExportedSpan[]): string {
  const ids = new Set(spans.map((s) => s.spanId));
  const ordered = [...spans].sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0));
  const lines = (parent: ExportedSpan | undefined, depth: number): string[] =>
    ordered
      .filter((s) => (parent ? s.parentSpanId === parent.spanId : !ids.has(s.parentSpanId)))
      .flatMap((s) => [
        `${'  '.repeat(depth)}${s.service}: ${s.name} ${s.durationMs.toFixed(1)} ms`,
        ...lines(s, depth + 1),
      ]);
  return lines(undefined, 0).join('\n');
}

const START = '2024-01-01T00:00:00Z';
let receiver: OtlpReceiver;
let sim: OrbSimulator;
let platform: TestPlatform;
let api: ApiProcess;
let worker: WorkerProcess;
let token: string;
let connectorId: string;

const call = (method: string, path: string, body?: unknown) =>
  fetch(`${api.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

beforeAll(async () => {
  receiver = new OtlpReceiver();
  await receiver.start();
  sim = await startOrbSimulator({ customers: 4, subscriptionsPerCustomer: 0 });
  platform = await startTestPlatform({ overrides: { baseUrls: { ORB: sim.url }, tokenUrls: {} }, worker: false });
  const traced = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, CONNECTOR_BASE_URL_ORB: sim.url };
  api = await ApiProcess.start(platform.api.deps.env, traced);
  worker = new WorkerProcess(platform.api.deps.env, { ...traced, LOG_LEVEL: 'info' });
  worker.start();
  await worker.waitFor('worker started');
  token = await platform.token();
  const created = await call('POST', '/api/v1/integrations/connectors', {
    customer_name: 'traced',
    name: 'orb',
    ...orbSettingsFrom(sim.apiKey, START),
  });
  expect(created.status, await created.clone().text()).toBe(201);
  connectorId = ((await created.json()) as { connector_id: string }).connector_id;
  await eventually(async () => {
    const view = (await (await call('GET', `/api/v1/integrations/connectors/${connectorId}`)).json()) as {
      entities: Record<string, { status: string; running: boolean }>;
    };
    return view.entities.customers?.status === 'ready' && !view.entities.customers.running ? true : undefined;
  }, 90_000);
}, 180_000);

afterAll(async () => {
  await worker?.kill('SIGTERM');
  await api?.stop();
  await platform?.close();
  await sim?.close();
  await receiver?.close();
});

describe('OpenTelemetry traces over OTLP/HTTP', () => {
  it('exports one search as one trace: the request, the engine and its HTTP call, the connector read from Postgres', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const response = await fetch(`${api.url}/api/v1/integrations/connectors/${connectorId}/execute`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        // The caller's own trace: the API continues it (W3C trace context).
        traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
      },
      body: JSON.stringify({ entity: 'customers', action: 'search', params: { query: {}, limit: 2 } }),
    });
    expect(response.status).toBe(200);
    const spans = await eventually(async () => {
      const found = receiver.trace(traceId);
      return found.some((s) => s.name.startsWith('POST /api')) &&
        found.some((s) => s.name === 'opensearch.search') &&
        found.some((s) => s.name.startsWith('postgres '))
        ? found
        : undefined;
    }, 20_000);
    console.log(`trace of one search (${traceId}):\n${outline(spans)}`);
    const request = spans.find((s) => s.name === 'POST /api/v1/integrations/connectors/{id}/execute')!;
    expect(request).toBeDefined();
    expect(request.parentSpanId).toBe('00f067aa0ba902b7');
    expect(request.attributes['http.response.status_code']).toBe(200);
    const engine = spans.find((s) => s.name === 'opensearch.search')!;
    expect(engine.parentSpanId).toBe(request.spanId);
    expect(spans.every((s) => s.service === 'conduit-api')).toBe(true);
    // The engine's own HTTP request (undici), under the engine's span.
    expect(spans.some((s) => s.parentSpanId === engine.spanId && s.attributes['http.request.method'] === 'POST')).toBe(
      true,
    );
    // The API's first search reads the connector from Postgres (then it is cached).
    expect(spans.some((s) => s.name === 'postgres SELECT' && s.parentSpanId === request.spanId)).toBe(true);
    expect([...receiver.contentTypes]).toContain('application/json');
  }, 60_000);

  it('exports a webhook-triggered re-read as one trace from the API’s request to the worker’s job and upstream call', async () => {
    const secret = sim.webhooks.newSecret();
    const patched = await call('PATCH', `/api/v1/integrations/connectors/${connectorId}`, { webhook_secret: secret });
    expect(patched.status).toBe(200);
    sim.webhooks.sender.subscribe(`${api.url}/api/v1/integrations/connectors/${connectorId}/webhooks`, secret);
    const customer = sim.data.customers[0]!;
    customer.email = 'traced@example.com';
    const { eventId, body } = orbCustomerEvent('customer.edited', { id: customer.id });
    expect(await sim.webhooks.sender.emit(body, eventId)).toBe(202);
    const spans = await eventually(async () => {
      const accepted = receiver.spans.find((s) => s.name === 'POST /api/v1/integrations/connectors/{id}/webhooks');
      if (!accepted) return undefined;
      const trace = receiver.trace(accepted.traceId);
      return trace.some((s) => s.service === 'conduit-worker' && s.name === 'webhook-event') &&
        trace.some((s) => s.service === 'conduit-worker' && s.attributes['http.request.method'] === 'GET')
        ? trace
        : undefined;
    }, 30_000);
    console.log(`trace of one webhook-triggered re-read:\n${outline(spans)}`);
    const accepted = spans.find((s) => s.name === 'POST /api/v1/integrations/connectors/{id}/webhooks')!;
    const job = spans.find((s) => s.name === 'webhook-event')!;
    expect(accepted.service).toBe('conduit-api');
    expect(job.service).toBe('conduit-worker');
    // The job continues the request's trace: its parent is a span of the API process.
    expect(spans.find((s) => s.spanId === job.parentSpanId)?.service).toBe('conduit-api');
    const upstream = spans.find(
      (s) => s.service === 'conduit-worker' && s.attributes['http.request.method'] === 'GET',
    )!;
    expect(String(upstream.attributes['url.full'])).toContain('/customers/');
    expect(spans.some((s) => s.service === 'conduit-worker' && s.name.startsWith('postgres '))).toBe(true);
    // Redis: the API's deduplication of the event id, the worker's draw on the connector's upstream budget.
    expect(spans.some((s) => s.service === 'conduit-api' && s.name === 'redis set')).toBe(true);
    expect(spans.some((s) => s.service === 'conduit-worker' && s.name.startsWith('redis '))).toBe(true);
    // The worker's log line of the event carries the trace's id.
    await eventually(
      async () =>
        worker.output.some(
          (line) => line.includes('webhook event processed') && line.includes(`"trace_id":"${accepted.traceId}"`),
        )
          ? true
          : undefined,
      10_000,
    );
  }, 60_000);
});
