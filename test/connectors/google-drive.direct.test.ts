import { expect, it } from 'vitest';
import { googleDriveCatalog } from '../../packages/connectors/src/kinds/google-drive/catalog.ts';
import { googleDriveConnector } from '../../packages/connectors/src/kinds/google-drive/connector.ts';
import { uploadUrl } from '../../packages/connectors/src/kinds/google-drive/files.ts';
import { bytesAt } from '../simulators/google-drive/content.ts';
import type { DriveData, DriveFile } from '../simulators/google-drive/data.ts';
import type { DownloadLog } from '../simulators/google-drive/file-routes.ts';
import { startGoogleDrive } from '../simulators/google-drive/simulator.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';
import { describeConnectorConformance } from './conformance.ts';
import { failure } from './conformance-kit.ts';
import { echoedCredentials, missingAction, misspeltEntity, retryAfterStorm } from './conformance-presets.ts';

type DriveHandle = SimulatorHandle & { data: DriveData; downloads: DownloadLog[]; largeFile: DriveFile };
type Rows = Record<string, unknown> & Record<string, unknown>[];

async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

const drives = { entity: 'drives', action: 'list', params: {} };
const big = Buffer.alloc(5 * 1024 * 1024 + 1, 1).toString('base64');
const bound = (entity: string, action: string, params: Record<string, unknown>, name: string) => ({
  entity,
  action,
  params,
  path: `/params/${name}`,
});

describeConnectorConformance({
  name: 'Google-Drive in direct mode',
  definition: googleDriveConnector,
  start: async () => (await startGoogleDrive({ size: 30, largeFileBytes: 64 * 1024 * 1024 })) as DriveHandle,
  // An empty upload is a valid upload.
  emptyAllowed: ['file_content'],
  invalid: [
    bound('files', 'list', { pageSize: 0 }, 'pageSize'),
    bound('files', 'list', { pageSize: 1001 }, 'pageSize'),
    bound('drives', 'list', { pageSize: 101 }, 'pageSize'),
    bound('permissions', 'list', { fileId: 'f', pageSize: 101 }, 'pageSize'),
    bound('comments', 'list', { fileId: 'f', pageSize: 101 }, 'pageSize'),
    bound('replies', 'list', { fileId: 'f', commentId: 'c', pageSize: 101 }, 'pageSize'),
    bound('files', 'download', { fileId: 'f', alt: 'json' }, 'alt'),
    bound('files', 'download', { fileId: 'f', alt: 'media', range_header: 'bytes=9-1' }, 'range_header'),
    bound('files_upload', 'create', { name: 'x', file_content: big }, 'file_content'),
    bound('files_upload', 'create', { name: 'x', file_content: 'not base64!' }, 'file_content'),
  ],
  unsupported: [misspeltEntity('file', 'files'), missingAction('drives', 'delete', 'list, get')],
  storms: [
    retryAfterStorm(drives, '/drive/v3/'),
    {
      label: '403 userRateLimitExceeded by backoff',
      fault: { status: 403, count: 2, pathIncludes: '/drive/v3/' },
      request: drives,
    },
  ],
  auth: { request: { entity: 'about', action: 'get', params: { fields: '*' } } },
  echo: echoedCredentials(drives, ['client_secret', 'refresh_token'], (planted) => ({
    status: 400,
    pathIncludes: '/drive/v3/',
    body: { error: { code: 400, message: `bad request for ${planted}` } },
  })),
  replication: { notApplicable: 'the specification lists no searchable entity (files replication is checked below)' },
  resume: { notApplicable: 'nothing is replicated, and the 30 files fit in one read page' },
  specific: (h) => {
    const json = async (entity: string, action: string, params: Record<string, unknown> = {}) =>
      (await h.json(entity, action, params)) as { data: Rows; meta?: Record<string, unknown> };
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
      const file = h.sim().data.files.find((f) => f.mimeType === 'text/plain' && !f.driveId)!;
      const result = await h.connector().execute({
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
      const before = h.sim().downloads.length;
      const result = await h.connector().execute({
        entity: 'files',
        action: 'download',
        params: { fileId: h.sim().largeFile.id, alt: 'media' },
        signal: controller.signal,
      });
      if (result.type !== 'stream') throw new Error('expected a stream');
      expect(result.download.headers.get('content-length')).toBe(String(64 * 1024 * 1024));
      const reader = result.download.body.getReader();
      let received = 0;
      while (received < 256 * 1024) received += (await reader.read()).value?.length ?? 0;
      controller.abort();
      await reader.read().catch(() => undefined);
      const log = h.sim().downloads[before]!;
      for (let i = 0; i < 100 && log.state === 'streaming'; i++)
        await new Promise((resolve) => setTimeout(resolve, 20));
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
      const result = await h.connector().execute({
        entity: 'files',
        action: 'download',
        params: { fileId: created.data.id, alt: 'media' },
      });
      if (result.type !== 'stream') throw new Error('expected a stream');
      expect(await text(result.download.body)).toBe(content);
    });

    it('exports a document, and explains the 10 MB export limit', async () => {
      const huge = h.sim().data.files.find((f) => f.name === 'Huge report')!;
      const error = await failure(
        h.connector().execute({
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
      const file = h.sim().data.files.find((f) => f.mimeType === 'image/png' && !f.driveId && f.parents.length === 1)!;
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
      const gone = await failure(
        h.connector().execute({ entity: 'files', action: 'get', params: { fileId: file.id } }),
      );
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

    it('replicates files (the only searchable entity) from start_date, then through the changes feed', async () => {
      expect(
        Object.values(googleDriveCatalog.entities)
          .filter((e) => e.searchable || e.sync)
          .map((e) => e.name),
      ).toEqual(['files']);
      const since = String(h.sim().replicationConfig.start_date);
      const pages: { ids: string[]; position?: string | undefined }[] = [];
      for await (const page of h.connector().read('files', { since })) {
        pages.push({ ids: page.records.map((r) => String(r.id)), position: page.position });
      }
      const expected = h
        .sim()
        .data.files.filter((f) => Date.parse(f.modifiedTime) >= Date.parse(since) && !f.trashed)
        .map((f) => f.id);
      expect(pages.flatMap((p) => p.ids).sort()).toEqual([...expected].sort());
      expect(expected.length).toBeLessThan(h.sim().data.files.length);
      // The listing ends at the feed position taken before it; from there the feed has nothing new.
      const position = pages.at(-1)?.position;
      expect(position).toBeTruthy();
      const feed: { ids: string[]; removed: readonly string[] }[] = [];
      for await (const page of h.connector().read('files', { since, position: position! })) {
        feed.push({ ids: page.records.map((r) => String(r.id)), removed: page.removed ?? [] });
      }
      expect(feed.flatMap((p) => [...p.ids, ...p.removed])).toEqual([]);
    });
  },
});
