import { describe, expect, it } from 'vitest';
import { actionParams, type LiveActionName } from '../../core/catalog.ts';
import { base64DecodedLength, googleDriveCatalog, MAX_UPLOAD_BYTES } from './catalog.ts';

const { entities } = googleDriveCatalog;

const params = (entity: string, action: LiveActionName) => actionParams(entities, entity, action);

const base64Of = (bytes: number) => Buffer.alloc(bytes, 7).toString('base64');

describe('Google Drive catalog', () => {
  it('makes files searchable over the record fields the catalog lists, replicated through the changes feed; nothing else', () => {
    for (const entity of Object.values(entities)) {
      if (entity.name === 'files') continue;
      expect(entity.searchable, entity.name).toBeUndefined();
      expect(entity.sync, entity.name).toBeUndefined();
    }
    expect(Object.keys(entities.files?.searchable ?? {})).toEqual(Object.keys(entities.files?.record ?? {}));
    expect(entities.files?.sync).toEqual({ mode: 'incremental' });
    expect(entities.files?.changeCapture).toMatchObject({ cursor: 'feed', seesEdits: true, seesDeletions: true });
    expect(entities.files_upload?.writesTo).toBe('files');
  });

  it('declares the actions of its contract', () => {
    const actions = Object.fromEntries(Object.values(entities).map((e) => [e.name, Object.keys(e.actions).sort()]));
    expect(actions).toEqual({
      files: ['create', 'delete', 'download', 'get', 'list', 'update'],
      files_upload: ['create'],
      files_export: ['download'],
      drives: ['get', 'list'],
      permissions: ['get', 'list'],
      comments: ['get', 'list'],
      replies: ['get', 'list'],
      revisions: ['get', 'list'],
      changes: ['list'],
      changes_start_page_token: ['get'],
      about: ['get'],
    });
  });

  it('declares every record field nullable but the identifier', () => {
    expect(entities.files?.record.id?.nullable).toBe(false);
    expect(entities.files?.record.name?.nullable).toBe(true);
    expect(entities.files?.record.modifiedTime).toEqual({ type: 'datetime', nullable: true });
    expect(entities.files?.meta).toHaveProperty('incompleteSearch');
  });

  it('bounds pageSize per entity', () => {
    expect(params('files', 'list').safeParse({ pageSize: 1000 }).success).toBe(true);
    expect(params('files', 'list').safeParse({ pageSize: 1001 }).success).toBe(false);
    expect(params('files', 'list').safeParse({ pageSize: 0 }).success).toBe(false);
    expect(params('drives', 'list').safeParse({ pageSize: 100 }).success).toBe(true);
    expect(params('drives', 'list').safeParse({ pageSize: 101 }).success).toBe(false);
    for (const [entity, extra] of [
      ['permissions', { fileId: 'f' }],
      ['comments', { fileId: 'f' }],
      ['replies', { fileId: 'f', commentId: 'c' }],
    ] as const) {
      expect(params(entity, 'list').safeParse({ ...extra, pageSize: 100 }).success, entity).toBe(true);
      expect(params(entity, 'list').safeParse({ ...extra, pageSize: 101 }).success, entity).toBe(false);
    }
    expect(params('revisions', 'list').safeParse({ fileId: 'f', pageSize: 1000 }).success).toBe(true);
    expect(params('revisions', 'list').safeParse({ fileId: 'f', pageSize: 1001 }).success).toBe(false);
  });

  it('validates list filters', () => {
    const list = params('files', 'list');
    expect(list.safeParse({ corpora: 'allDrives', spaces: 'drive,appDataFolder' }).success).toBe(true);
    expect(list.safeParse({ corpora: 'domain' }).success).toBe(false);
    expect(list.safeParse({ spaces: 'photos' }).success).toBe(false);
    expect(list.safeParse({ corpora: 'drive' }).success).toBe(false);
    expect(list.safeParse({ corpora: 'drive', driveId: 'd1' }).success).toBe(true);
    expect(params('comments', 'list').safeParse({ fileId: 'f', startModifiedTime: 'yesterday' }).success).toBe(false);
  });

  it('requires alt=media and a well-formed range on download', () => {
    const download = params('files', 'download');
    expect(download.safeParse({ fileId: 'f', alt: 'media', range_header: 'bytes=0-99' }).success).toBe(true);
    expect(download.safeParse({ fileId: 'f', alt: 'media', range_header: 'bytes=100-' }).success).toBe(true);
    expect(download.safeParse({ fileId: 'f', alt: 'media', range_header: 'bytes=-500' }).success).toBe(true);
    expect(download.safeParse({ fileId: 'f' }).success).toBe(false);
    expect(download.safeParse({ fileId: 'f', alt: 'json' }).success).toBe(false);
    for (const range of ['bytes=-', 'bytes=a-b', 'items=0-9', 'bytes=9-1', 'bytes=0-1,5-9']) {
      expect(download.safeParse({ fileId: 'f', alt: 'media', range_header: range }).success, range).toBe(false);
    }
    const exportParams = params('files_export', 'download');
    expect(exportParams.safeParse({ fileId: 'f', mimeType: 'application/pdf' }).success).toBe(true);
    expect(exportParams.safeParse({ fileId: 'f' }).success).toBe(false);
  });

  it('accepts uploads up to 5 MB of decoded content and explains larger ones', () => {
    const upload = params('files_upload', 'create');
    expect(base64DecodedLength(base64Of(MAX_UPLOAD_BYTES))).toBe(MAX_UPLOAD_BYTES);
    expect(base64DecodedLength(base64Of(1))).toBe(1);
    expect(base64DecodedLength(base64Of(2))).toBe(2);
    expect(upload.safeParse({ name: 'a.bin', file_content: base64Of(MAX_UPLOAD_BYTES) }).success).toBe(true);
    const tooBig = upload.safeParse({ name: 'a.bin', file_content: base64Of(MAX_UPLOAD_BYTES + 1) });
    expect(tooBig.success).toBe(false);
    expect(tooBig.error?.issues[0]?.path).toEqual(['file_content']);
    expect(tooBig.error?.issues[0]?.message).toMatch(/at most 5 MB/);
    expect(upload.safeParse({ name: 'a.txt', file_content: 'not base64!' }).success).toBe(false);
    expect(upload.safeParse({ file_content: base64Of(3) }).success).toBe(false);
    expect(upload.safeParse({ name: 'a', file_content: base64Of(3), uploadType: 'resumable' }).success).toBe(false);
    expect(upload.safeParse({ name: 'a', file_content: base64Of(3), uploadType: 'multipart' }).success).toBe(true);
  });

  it('requires the identifiers and tokens the upstream needs', () => {
    expect(params('files', 'create').safeParse({ mimeType: 'application/vnd.google-apps.folder' }).success).toBe(false);
    expect(
      params('files', 'create').safeParse({ name: 'Folder', mimeType: 'application/vnd.google-apps.folder' }).success,
    ).toBe(true);
    expect(params('files', 'update').safeParse({ name: 'x' }).success).toBe(false);
    expect(params('files', 'update').safeParse({ fileId: 'f', addParents: 'a,b', removeParents: 'c' }).success).toBe(
      true,
    );
    expect(params('permissions', 'get').safeParse({ fileId: 'f' }).success).toBe(false);
    expect(params('replies', 'get').safeParse({ fileId: 'f', commentId: 'c', replyId: 'r' }).success).toBe(true);
    expect(params('changes', 'list').safeParse({}).success).toBe(false);
    expect(params('changes', 'list').safeParse({ pageToken: '123' }).success).toBe(true);
    expect(params('about', 'get').safeParse({}).success).toBe(false);
    expect(params('about', 'get').safeParse({ fields: '*' }).success).toBe(true);
  });

  it('requires an OAuth refresh setup', () => {
    const base = { refresh_token: 'r', client_id: 'c', client_secret: 's' };
    expect(googleDriveCatalog.credentials.safeParse(base).success).toBe(true);
    expect(googleDriveCatalog.credentials.safeParse({ access_token: 'a' }).success).toBe(false);
  });
});
