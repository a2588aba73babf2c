import { randomBytes } from 'node:crypto';
import type {
  ConnectorContext,
  DownloadResult,
  EntityOperations,
  Params,
  ReadPage,
  UpstreamRecord,
} from '../../core/define-connector.ts';
import { ConnectorError, UpstreamError } from '../../core/errors.ts';
import { pathOf, type QueryValue, type UpstreamRequest } from '../../core/http-client.ts';
import { listDeclared, readListing } from '../../core/listing.ts';
import { googleDriveCatalog } from './catalog.ts';
import { driveJson, driveSend } from './drive-http.ts';
import { driveListHooks, queryOf } from './mapping.ts';

/** files_upload accepts what Drive's simple multipart upload does: up to 5 MB (the catalog's limits). */
export const MAX_UPLOAD_BYTES = 5 * 1024 * 1024;
/** Replication page: Drive's files.list maximum. */
const READ_PAGE_SIZE = 1000;

/**
 * The upload host: Drive takes media at https://www.googleapis.com/upload/drive/v3 beside the metadata API at
 * https://www.googleapis.com/drive/v3 (https://developers.google.com/workspace/drive/api/guides/manage-uploads).
 * It is derived from the configured base by inserting `/upload` before `/drive/v3`, so an overridden base (a
 * simulator, a proxy) gets its matching upload path on the same origin.
 */
export function uploadUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/$/, '');
  const at = path.lastIndexOf('/drive/v3');
  url.pathname = at >= 0 ? `${path.slice(0, at)}/upload${path.slice(at)}/files` : `${path}/upload/drive/v3/files`;
  url.search = '';
  return url.toString();
}

function decodeContent(raw: unknown): Buffer {
  const text = String(raw).replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(text) || text.length % 4 === 1) {
    throw new ConnectorError('invalid_params', 'invalid params', [
      { path: '/params/file_content', message: 'must be base64-encoded content' },
    ]);
  }
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const size = Math.floor((text.length * 3) / 4) - padding;
  if (size > MAX_UPLOAD_BYTES) {
    throw new ConnectorError('invalid_params', 'invalid params', [
      {
        path: '/params/file_content',
        message: `decodes to ${size} bytes; files_upload accepts at most 5 MB (${MAX_UPLOAD_BYTES} bytes)`,
      },
    ]);
  }
  return Buffer.from(text, text.includes('-') || text.includes('_') ? 'base64url' : 'base64');
}

/** A multipart/related body: the metadata JSON part, then the media part. */
export function multipartBody(
  metadata: Record<string, unknown>,
  content: Buffer,
  contentType: string,
): { body: Buffer; boundary: string } {
  const boundary = `conduit-${randomBytes(12).toString('hex')}`;
  const head = `--${boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n${JSON.stringify(metadata)}\r\n--${boundary}\r\nContent-Type: ${contentType}\r\n\r\n`;
  return { body: Buffer.concat([Buffer.from(head), content, Buffer.from(`\r\n--${boundary}--\r\n`)]), boundary };
}

function defined(entries: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined));
}

/** Streams media (`alt=media` or export) without buffering it; `range_header` becomes Range → 206 + Content-Range. */
async function stream(
  ctx: ConnectorContext,
  path: string,
  query: Record<string, QueryValue>,
  range: unknown,
): Promise<DownloadResult> {
  const response = await driveSend(ctx, {
    path,
    query,
    headers: typeof range === 'string' && range !== '' ? { range } : {},
    acceptStatuses: [206],
  });
  if (!response.body)
    throw new UpstreamError('upstream_error', 'the upstream answered without content', response.status, null);
  return { status: response.status, headers: response.headers, body: response.body };
}

const { files: filesEntity, changes: changesEntity } = googleDriveCatalog.entities;
const filesHooks = driveListHooks(['nextPageToken', 'incompleteSearch']);
export const changesHooks = driveListHooks(['nextPageToken', 'newStartPageToken']);

/**
 * Drive deduplicates a create that carries an id from files/generateIds
 * (https://developers.google.com/workspace/drive/api/guides/create-file#generate-ids): sending it again cannot make
 * a second file, so the HTTP client may resend it, and its 409 Conflict means "already made" (by an earlier attempt
 * or a call that died before recording the answer): the file itself is the answer. Google Workspace files other
 * than folders take no pre-generated id.
 */
async function createOnce(ctx: ConnectorContext, params: Params, request: UpstreamRequest): Promise<unknown> {
  if (params.id === undefined) return driveJson(ctx, request);
  const response = await driveSend(ctx, { ...request, idempotent: true, acceptStatuses: [409] });
  if (response.status !== 409) return ctx.http.readJson(response);
  await response.body?.cancel();
  return driveJson(ctx, { path: pathOf('files', String(params.id)), query: { fields: '*', supportsAllDrives: true } });
}

function takesGeneratedId(mimeType: unknown): boolean {
  return typeof mimeType !== 'string' || !mimeType.startsWith('application/vnd.google-apps.') || mimeType === FOLDER;
}

const FOLDER = 'application/vnd.google-apps.folder';

/** Adds an id from files/generateIds to a create that has none (a create that can then be sent twice safely). */
async function withGeneratedId(ctx: ConnectorContext, action: string, params: Params): Promise<Params> {
  if (action !== 'create' || params.id !== undefined || !takesGeneratedId(params.mimeType)) return params;
  const generated = await driveJson<{ ids?: string[] }>(ctx, {
    path: 'files/generateIds',
    query: { count: 1, space: 'drive', type: 'files' },
  });
  const id = generated?.ids?.[0];
  if (!id) throw new UpstreamError('upstream_error', 'files/generateIds answered without an id', 200, null);
  return { ...params, id };
}

/** files lists and gets as declared in the catalog; writes, media and replication (the changes feed) are Drive's own. */
export const files: EntityOperations = {
  hooks: filesHooks,
  prepare: withGeneratedId,
  create: (ctx, params) =>
    createOnce(ctx, params, {
      method: 'POST',
      path: 'files',
      query: { fields: '*' },
      json: defined({
        id: params.id,
        name: params.name,
        mimeType: params.mimeType,
        parents: params.parents,
        description: params.description,
      }),
    }),
  // Moving a file is addParents/removeParents on the query, not a metadata field (files.update reference).
  update: (ctx, params) =>
    driveJson(ctx, {
      method: 'PATCH',
      path: pathOf('files', String(params.fileId)),
      query: { ...queryOf(params, ['fileId', 'name', 'description', 'mimeType']), fields: '*' },
      json: defined({ name: params.name, description: params.description, mimeType: params.mimeType }),
    }),
  // Drive answers 204 with no body; the caller gets an explicit acknowledgement instead of nothing.
  delete: async (ctx, params) => {
    await driveJson(ctx, {
      method: 'DELETE',
      path: pathOf('files', String(params.fileId)),
      query: queryOf(params, ['fileId']),
    });
    return { id: params.fileId, deleted: true };
  },
  download: (ctx, params) =>
    stream(
      ctx,
      pathOf('files', String(params.fileId)),
      { ...queryOf(params, ['fileId', 'alt', 'range_header']), alt: 'media' },
      params.range_header,
    ),
  // Replication through Drive's changes feed (catalog: changeCapture.cursor 'feed'): a first (or full) pass lists
  // every file modified since start_date and not trashed, and ends at the feed position taken BEFORE listing (so a
  // change made during the listing is read again next time, never lost); later runs read the feed from there.
  read: (ctx, request) =>
    request.position === undefined
      ? readAllFiles(ctx, request.since, request.resume)
      : readChanges(ctx, request.position, request.since, request.resume),
};

/** Every query of replication covers My Drive and the shared drives the user sees. */
const ALL_DRIVES = { includeItemsFromAllDrives: true, supportsAllDrives: true } as const;

interface ListingCheckpoint {
  /** The feed position taken before the listing started: where the next incremental run reads from. */
  readonly startPageToken: string;
  readonly next: Params | null;
}

async function* readAllFiles(ctx: ConnectorContext, since: string, resume: unknown): AsyncGenerator<ReadPage> {
  const from = resume as ListingCheckpoint | undefined;
  // https://developers.google.com/workspace/drive/api/guides/manage-changes#get-start-page-token
  const startPageToken = from?.startPageToken ?? (await currentPosition(ctx));
  const at = new Date(since).toISOString();
  const first: Params = {
    // https://developers.google.com/workspace/drive/api/guides/search-files: trashed files are not part of the copy.
    q: `modifiedTime >= '${at}' and trashed = false`,
    orderBy: 'modifiedTime',
    pageSize: READ_PAGE_SIZE,
    corpora: 'allDrives',
    ...ALL_DRIVES,
  };
  for await (const page of readListing(ctx, filesEntity!.upstream!, first, from?.next ?? undefined, filesHooks)) {
    const next = page.checkpoint as Params | null;
    yield {
      records: page.records,
      checkpoint: next ? ({ startPageToken, next } satisfies ListingCheckpoint) : null,
      ...(next ? {} : { position: startPageToken }),
    };
  }
}

async function currentPosition(ctx: ConnectorContext): Promise<string> {
  const body = await driveJson<Record<string, unknown>>(ctx, {
    path: 'changes/startPageToken',
    query: { supportsAllDrives: true },
  });
  if (typeof body.startPageToken !== 'string' || body.startPageToken === '') {
    throw new UpstreamError('upstream_error', 'changes/startPageToken answered without a startPageToken', 200, null);
  }
  return body.startPageToken;
}

/**
 * https://developers.google.com/workspace/drive/api/guides/manage-changes: pages of changes from `position`; each
 * names a file and its current state. A removed file (deleted forever, or no longer visible), a trashed one, or one
 * modified before start_date leaves the copy; the others are upserted. The last page's newStartPageToken is where
 * the next run starts.
 */
async function* readChanges(
  ctx: ConnectorContext,
  position: string,
  since: string,
  resume: unknown,
): AsyncGenerator<ReadPage> {
  let pageToken = typeof resume === 'string' && resume !== '' ? resume : position;
  const startMs = Date.parse(since);
  for (;;) {
    const page = await listDeclared(
      ctx,
      changesEntity!.upstream!,
      { pageToken, pageSize: READ_PAGE_SIZE, includeRemoved: true, ...ALL_DRIVES, fields: '*' },
      changesHooks,
    );
    const records: UpstreamRecord[] = [];
    const removed: string[] = [];
    for (const change of page.records) {
      if (change.changeType === 'drive') continue;
      const file = change.file as UpstreamRecord | null | undefined;
      const fileId = typeof change.fileId === 'string' ? change.fileId : (file?.id as string | undefined);
      if (!fileId) continue;
      const gone =
        change.removed === true ||
        !file ||
        file.trashed === true ||
        !(Date.parse(String(file.modifiedTime)) >= startMs);
      if (gone) removed.push(fileId);
      else records.push(file);
    }
    const next = page.meta.nextPageToken;
    if (typeof next === 'string') {
      yield { records, removed, checkpoint: next };
      if (next === pageToken) {
        throw new UpstreamError('upstream_error', 'the changes feed returned the same page token twice', 200, null);
      }
      pageToken = next;
      continue;
    }
    const newStart = page.meta.newStartPageToken;
    if (typeof newStart !== 'string' || newStart === '') {
      throw new UpstreamError('upstream_error', 'the changes feed ended without a newStartPageToken', 200, null);
    }
    yield { records, removed, checkpoint: null, position: newStart };
    return;
  }
}

export const filesUpload: EntityOperations = {
  prepare: withGeneratedId,
  create: async (ctx, params) => {
    const content = decodeContent(params.file_content);
    if (params.uploadType !== undefined && params.uploadType !== 'multipart') {
      throw new ConnectorError('invalid_params', 'invalid params', [
        { path: '/params/uploadType', message: "only 'multipart' is supported" },
      ]);
    }
    const metadata = defined({
      id: params.id,
      name: params.name,
      mimeType: params.mimeType,
      parents: params.parents,
      description: params.description,
    });
    const contentType = typeof params.file_mime_type === 'string' ? params.file_mime_type : 'application/octet-stream';
    const { body, boundary } = multipartBody(metadata, content, contentType);
    return createOnce(ctx, params, {
      method: 'POST',
      path: uploadUrl(ctx.http.baseUrl),
      query: defined({ uploadType: 'multipart', supportsAllDrives: params.supportsAllDrives, fields: '*' }) as Record<
        string,
        QueryValue
      >,
      headers: { 'content-type': `multipart/related; boundary=${boundary}` },
      body: new Uint8Array(body),
    });
  },
};

export const filesExport: EntityOperations = {
  download: (ctx, params) =>
    stream(
      ctx,
      pathOf('files', String(params.fileId), 'export'),
      { mimeType: String(params.mimeType) },
      params.range_header,
    ),
};
