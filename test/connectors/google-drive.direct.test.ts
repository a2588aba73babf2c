import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { connectWith } from '../../packages/connectors/src/core/connect.ts';
import type { ConnectorSettings } from '../../packages/connectors/src/core/define-connector.ts';
import { ConnectorError, UpstreamError } from '../../packages/connectors/src/core/errors.ts';
import { googleDriveCatalog } from '../../packages/connectors/src/kinds/google-drive/catalog.ts';
import { googleDriveConnector } from '../../packages/connectors/src/kinds/google-drive/connector.ts';
import { uploadUrl } from '../../packages/connectors/src/kinds/google-drive/files.ts';
import { bytesAt } from '../simulators/google-drive/content.ts';
import type { DriveData, DriveFile } from '../simulators/google-drive/data.ts';
import type { DownloadLog } from '../simulators/google-drive/file-routes.ts';
import { startGoogleDrive } from '../simulators/google-drive/simulator.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';

type DriveHandle = SimulatorHandle & { data: DriveData; downloads: DownloadLog[]; largeFile: DriveFile };

async function failure(promise: Promise<unknown>): Promise<ConnectorError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectorError);
  return error as ConnectorError;
}

async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

describe('Google-Drive in direct mode', () => {
  let sim: DriveHandle;
  beforeAll(async () => {
    sim = (await startGoogleDrive({ size: 30, largeFileBytes: 64 * 1024 * 1024 })) as DriveHandle;
  });
  afterAll(() => sim.close());

  const drive = (settings: ConnectorSettings = {}, credentials: Record<string, unknown> = sim.credentials) =>
    connectWith(googleDriveConnector, credentials, sim.config, {
      baseUrl: sim.baseUrl,
      tokenUrl: sim.tokenUrl,
      ...settings,
    });
  const json = async (entity: string, action: string, params: Record<string, unknown> = {}) => {
    const result = await drive().execute({ entity, action, params });
    if (result.type !== 'json') throw new Error('expected json');
    return result.body as { data: Record<string, unknown> & Record<string, unknown>[]; meta?: Record<string, unknown> };
  };

  it('answers every example call with data (lists with nextPageToken meta, downloads as streams)', async () => {
    const connector = drive();
    for (const example of sim.examples) {
      const result = await connector.execute(example);
      if (example.action === 'download') {
        if (result.type !== 'stream') throw new Error(`${example.entity}: expected a stream`);
        expect((await text(result.download.body)).length, example.entity).toBeGreaterThan(0);
        continue;
      }
      if (result.type !== 'json') throw new Error('expected json');
      expect(result.body.data, `${example.entity} ${example.action}`).toBeTruthy();
      if (example.action === 'list') {
        expect((result.body.data as unknown[]).length, example.entity).toBeGreaterThan(0);
        expect(result.body.meta, example.entity).toHaveProperty('nextPageToken');
      }
    }
  });

  const required = Object.values(googleDriveCatalog.entities).flatMap((entity) =>
    Object.entries(entity.actions).flatMap(([action, schema]) =>
      Object.keys(schema.shape)
        .filter((name) => !(schema.shape[name] as z.ZodType).safeParse(undefined).success)
        .map((name) => ({ entity: entity.name, action, name })),
    ),
  );

  it.each(required)(
    '$entity $action without $name is invalid_params at /params/$name',
    async ({ entity, action, name }) => {
      const error = await failure(drive().execute({ entity, action, params: {} }));
      expect(error.code).toBe('invalid_params');
      expect(error.errors.map((e) => e.path)).toContain(`/params/${name}`);
    },
  );

  const big = Buffer.alloc(5 * 1024 * 1024 + 1, 1).toString('base64');
  it.each([
    { entity: 'files', action: 'list', params: { pageSize: 0 }, path: 'pageSize' },
    { entity: 'files', action: 'list', params: { pageSize: 1001 }, path: 'pageSize' },
    { entity: 'drives', action: 'list', params: { pageSize: 101 }, path: 'pageSize' },
    { entity: 'permissions', action: 'list', params: { fileId: 'f', pageSize: 101 }, path: 'pageSize' },
    { entity: 'comments', action: 'list', params: { fileId: 'f', pageSize: 101 }, path: 'pageSize' },
    { entity: 'replies', action: 'list', params: { fileId: 'f', commentId: 'c', pageSize: 101 }, path: 'pageSize' },
    { entity: 'files', action: 'download', params: { fileId: 'f', alt: 'json' }, path: 'alt' },
    {
      entity: 'files',
      action: 'download',
      params: { fileId: 'f', alt: 'media', range_header: 'bytes=9-1' },
      path: 'range_header',
    },
    { entity: 'files_upload', action: 'create', params: { name: 'x', file_content: big }, path: 'file_content' },
    {
      entity: 'files_upload',
      action: 'create',
      params: { name: 'x', file_content: 'not base64!' },
      path: 'file_content',
    },
  ])('$entity $action rejects a violated bound on $path', async ({ entity, action, params, path }) => {
    const error = await failure(drive().execute({ entity, action, params }));
    expect(error.code).toBe('invalid_params');
    expect(error.errors.map((e) => e.path)).toContain(`/params/${path}`);
  });

  it('answers an unknown entity or action with unsupported_action listing the supported ones', async () => {
    const entity = await failure(drive().execute({ entity: 'file', action: 'list' }));
    expect(entity.code).toBe('unsupported_action');
    expect(entity.errors[0]?.message).toContain('files');
    const action = await failure(drive().execute({ entity: 'drives', action: 'delete', params: {} }));
    expect(action.code).toBe('unsupported_action');
    expect(action.errors[0]?.message).toContain('list, get');
  });

  it('rides out a 429 storm honouring Retry-After and 403 userRateLimitExceeded by backoff', async () => {
    sim.faults.add({ status: 429, count: 3, retryAfterSeconds: 0, pathIncludes: '/drive/v3/' });
    expect((await json('drives', 'list')).data.length).toBeGreaterThan(0);
    sim.faults.add({ status: 403, count: 2, pathIncludes: '/drive/v3/' });
    expect((await json('drives', 'list')).data.length).toBeGreaterThan(0);
  });

  it('maps rejected credentials to upstream_auth_failed without echoing any secret', async () => {
    const error = await failure(
      drive({}, sim.badCredentials).execute({ entity: 'about', action: 'get', params: { fields: '*' } }),
    );
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.code).toBe('upstream_auth_failed');
    for (const secret of Object.values(sim.badCredentials).map(String)) {
      expect(JSON.stringify(error)).not.toContain(secret);
      expect(error.message).not.toContain(secret);
    }
  });

  it('pages files with pageToken and keeps nextPageToken when the caller narrows fields', async () => {
    const first = await json('files', 'list', { pageSize: 7, fields: 'files(id,name)', orderBy: 'modifiedTime' });
    expect(first.data).toHaveLength(7);
    expect(Object.keys(first.data[0]!).sort()).toEqual(['id', 'name']);
    expect(typeof first.meta?.nextPageToken).toBe('string');
    expect(first.meta?.incompleteSearch).toBe(false);
    const second = await json('files', 'list', {
      pageSize: 7,
      fields: 'files(id,name)',
      orderBy: 'modifiedTime',
      pageToken: first.meta?.nextPageToken,
    });
    expect(second.data.map((f) => f.id)).not.toContain(first.data[0]!.id);
  });

  it('downloads a byte range as 206 with Content-Range', async () => {
    const file = sim.data.files.find((f) => f.mimeType === 'text/plain' && !f.driveId)!;
    const result = await drive().execute({
      entity: 'files',
      action: 'download',
      params: { fileId: file.id, alt: 'media', range_header: 'bytes=10-73' },
    });
    if (result.type !== 'stream') throw new Error('expected a stream');
    expect(result.download.status).toBe(206);
    expect(result.download.headers.get('content-range')).toBe(`bytes 10-73/${file.size}`);
    expect(await text(result.download.body)).toBe(bytesAt(file.id, 10, 73).toString('latin1'));
  });

  it('cancels the upstream download when the caller aborts mid-stream', async () => {
    const controller = new AbortController();
    const before = sim.downloads.length;
    const result = await drive().execute({
      entity: 'files',
      action: 'download',
      params: { fileId: sim.largeFile.id, alt: 'media' },
      signal: controller.signal,
    });
    if (result.type !== 'stream') throw new Error('expected a stream');
    expect(result.download.headers.get('content-length')).toBe(String(64 * 1024 * 1024));
    const reader = result.download.body.getReader();
    let received = 0;
    while (received < 256 * 1024) received += (await reader.read()).value?.length ?? 0;
    controller.abort();
    await reader.read().catch(() => undefined);
    const log = sim.downloads[before]!;
    for (let i = 0; i < 100 && log.state === 'streaming'; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(log.state).toBe('cancelled');
    expect(log.bytesSent).toBeLessThan(64 * 1024 * 1024);
  });

  it('uploads multipart content that a later download returns', async () => {
    const content = 'multipart body, line one\nline two\n';
    const created = await json('files_upload', 'create', {
      name: 'upload.txt',
      file_content: Buffer.from(content).toString('base64'),
      file_mime_type: 'text/plain',
      description: 'uploaded',
    });
    expect(created.data.name).toBe('upload.txt');
    expect(created.data.size).toBe(String(content.length));
    const result = await drive().execute({
      entity: 'files',
      action: 'download',
      params: { fileId: created.data.id, alt: 'media' },
    });
    if (result.type !== 'stream') throw new Error('expected a stream');
    expect(await text(result.download.body)).toBe(content);
  });

  it('exports a document, and explains the 10 MB export limit', async () => {
    const huge = sim.data.files.find((f) => f.name === 'Huge report')!;
    const error = await failure(
      drive().execute({
        entity: 'files_export',
        action: 'download',
        params: { fileId: huge.id, mimeType: 'application/pdf' },
      }),
    );
    expect(error.code).toBe('upstream_error');
    expect(error.message).toContain('10 MB');
  });

  it('moves a file with addParents/removeParents, creates folders, and deletes permanently', async () => {
    const folder = await json('files', 'create', { name: 'Target', mimeType: 'application/vnd.google-apps.folder' });
    const file = sim.data.files.find((f) => f.mimeType === 'image/png' && !f.driveId && f.parents.length === 1)!;
    const moved = await json('files', 'update', {
      fileId: file.id,
      addParents: folder.data.id,
      removeParents: file.parents[0],
      name: 'moved.png',
    });
    expect(moved.data.parents).toEqual([folder.data.id]);
    const inFolder = await json('files', 'list', { q: `'${String(folder.data.id)}' in parents and trashed = false` });
    expect(inFolder.data.map((f) => f.name)).toEqual(['moved.png']);
    expect((await json('files', 'delete', { fileId: file.id })).data).toEqual({ id: file.id, deleted: true });
    const gone = await failure(drive().execute({ entity: 'files', action: 'get', params: { fileId: file.id } }));
    expect(gone.code).toBe('upstream_not_found');
  });

  it('lists changes page by page until newStartPageToken', async () => {
    const start = await json('changes_start_page_token', 'get');
    expect(start.data.startPageToken).toBeTruthy();
    let params: Record<string, unknown> = { pageToken: '1', pageSize: 20 };
    let pages = 0;
    for (;;) {
      const page = await json('changes', 'list', params);
      pages++;
      if (!page.meta?.nextPageToken) {
        expect(page.meta?.newStartPageToken).toBe(start.data.startPageToken);
        break;
      }
      params = { ...params, pageToken: page.meta.nextPageToken };
    }
    expect(pages).toBeGreaterThan(1);
  });

  it('sends a uploads to the upload host derived from the base', () => {
    expect(uploadUrl('https://www.googleapis.com/drive/v3')).toBe('https://www.googleapis.com/upload/drive/v3/files');
    expect(uploadUrl('http://127.0.0.1:9/drive/v3/')).toBe('http://127.0.0.1:9/upload/drive/v3/files');
  });

  it('has no searchable entity (document 2 lists no search), and replicates files by modifiedTime, resumably', async () => {
    expect(Object.values(googleDriveCatalog.entities).filter((e) => e.searchable || e.sync)).toEqual([]);
    const since = String(sim.replicationConfig.start_date);
    const read = async (resume?: unknown) => {
      const pages: { ids: string[]; checkpoint: unknown }[] = [];
      for await (const page of drive().read('files', { since, ...(resume ? { resume } : {}) })) {
        pages.push({ ids: page.records.map((r) => String(r.id)), checkpoint: page.checkpoint });
      }
      return pages;
    };
    const expected = sim.data.files.filter((f) => Date.parse(f.modifiedTime) >= Date.parse(since)).map((f) => f.id);
    const all = (await read()).flatMap((p) => p.ids);
    expect([...all].sort()).toEqual([...expected].sort());
    expect(expected.length).toBeLessThan(sim.data.files.length);
  });
});
