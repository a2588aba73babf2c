import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiProcess } from '../harness/api-process.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import type { DriveState } from '../simulators/google-drive/file-routes.ts';
import { startGoogleDrive } from '../simulators/google-drive/simulator.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';

const MB = 1024 * 1024;
const LARGE = 200 * MB;

describe('downloads stream through the API', () => {
  let sim: SimulatorHandle & DriveState & { largeFile: { id: string } };
  let platform: TestPlatform;
  let api: ApiProcess;
  let executeUrl: string;
  let token: string;

  beforeAll(async () => {
    sim = (await startGoogleDrive({ size: 5, largeFileBytes: LARGE })) as typeof sim;
    const overrides = { GOOGLE_DRIVE: sim.baseUrl };
    platform = await startTestPlatform({
      overrides: { baseUrls: overrides, tokenUrls: { GOOGLE_DRIVE: sim.tokenUrl! } },
      worker: false,
    });
    const created = await platform.call('POST', '/api/v1/integrations/connectors', {
      customer_name: 'streams',
      connector_type: 'Google-Drive',
      name: 'drive',
      credentials: sim.credentials,
      replication_config: sim.replicationConfig,
    });
    expect(created.status).toBe(201);
    const connectorId = ((await created.json()) as { connector_id: string }).connector_id;
    // The API under measurement runs in its own process; the simulator and this client stay out of its memory.
    api = await ApiProcess.start(platform.api.deps.env, {
      CONNECTOR_BASE_URL_GOOGLE_DRIVE: sim.baseUrl,
      CONNECTOR_TOKEN_URL_GOOGLE_DRIVE: sim.tokenUrl!,
    });
    executeUrl = `${api.url}/api/v1/integrations/connectors/${connectorId}/execute`;
    token = await platform.token();
  }, 120_000);

  afterAll(async () => {
    await api?.stop();
    await platform?.close();
    await sim?.close();
  });

  const download = (params: Record<string, unknown>, signal?: AbortSignal) =>
    fetch(executeUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        entity: 'files',
        action: 'download',
        params: { fileId: sim.largeFile.id, alt: 'media', ...params },
      }),
      ...(signal ? { signal } : {}),
    });

  it('answers a range with 206, Content-Range and exactly those bytes', async () => {
    const response = await download({ range_header: 'bytes=100-199' });
    expect(response.status).toBe(206);
    expect(response.headers.get('content-range')).toBe(`bytes 100-199/${LARGE}`);
    expect((await response.arrayBuffer()).byteLength).toBe(100);
  });

  it('passes 200 MB through with the API’s RSS growing by less than half of it (never buffered whole)', async () => {
    await (await download({ range_header: 'bytes=0-1048575' })).arrayBuffer(); // warm the code path
    const baseline = api.rssBytes();
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, api.rssBytes());
    }, 50);
    const response = await download({});
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(LARGE));
    let received = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) received += chunk.byteLength;
    clearInterval(sampler);
    peak = Math.max(peak, api.rssBytes());
    expect(received).toBe(LARGE);
    const growth = peak - baseline;
    console.log(
      `streaming: 200 MB through the API, RSS baseline ${(baseline / MB).toFixed(1)} MB, peak growth ${(growth / MB).toFixed(1)} MB`,
    );
    // Each socket read is a buffer outside the JS heap that V8 frees once a collection finds its wrapper dead; with
    // few JS objects allocated, that happens at V8's external-memory limit (about 64 MB), not chunk by chunk. A body
    // held whole would be 200 MB.
    expect(growth).toBeLessThan(LARGE / 2);
  }, 120_000);

  it('cancels the upstream request when the client disconnects mid-download', async () => {
    const before = sim.downloads.length;
    const controller = new AbortController();
    const response = await download({}, controller.signal);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let received = 0;
    while (received < 4 * MB) received += (await reader.read()).value?.byteLength ?? 0;
    controller.abort();
    const log = await eventually(async () => {
      const entry = sim.downloads.slice(before).find((d) => d.fileId === sim.largeFile.id);
      return entry && entry.state !== 'streaming' ? entry : undefined;
    }, 20_000);
    expect(log.state).toBe('cancelled');
    expect(log.bytesSent).toBeLessThan(LARGE);
  }, 60_000);
});
