import type { Context, Hono } from 'hono';
import { seededRandom } from '../kit/random.ts';
import { contentStream, parseRange } from './content.ts';
import type { DriveData, DriveFile } from './data.ts';
import { googleError } from './errors.ts';
import { buildFile, changeOf, FOLDER, fileId } from './file-factory.ts';
import { applySelection, compileOrder, compileQuery, parseFields, QueryError } from './query.ts';

export interface DownloadLog {
  fileId: string;
  range: string | null;
  bytesSent: number;
  state: 'streaming' | 'done' | 'cancelled';
}

export interface DriveState {
  readonly data: DriveData;
  readonly downloads: DownloadLog[];
}

const EXPORT_LIMIT = 10 * 1024 * 1024;
const UPLOAD_LIMIT = 5 * 1024 * 1024;
const EXPORT_TYPES = new Set([
  'application/pdf',
  'text/plain',
  'text/csv',
  'text/html',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
]);

export function select(c: Context, body: unknown, fallback: string): Response {
  const fields = c.req.query('fields') ?? fallback;
  return c.json(applySelection(body, parseFields(fields)) as Record<string, unknown>);
}

/** Offset paging behind an opaque token, as Drive's `pageToken`/`nextPageToken` look from outside. */
export function pageOf<T>(
  c: Context,
  rows: readonly T[],
  max: number,
  fallback: number,
): { rows: T[]; nextPageToken?: string } | Response {
  const rawSize = c.req.query('pageSize');
  const size = rawSize === undefined ? fallback : Number(rawSize);
  if (!Number.isInteger(size) || size < 1 || size > max) {
    return c.json(
      googleError(400, 'invalidParameter', `Invalid value '${rawSize}'. Values must be within the range: [1, ${max}]`),
      400,
    );
  }
  const token = c.req.query('pageToken');
  const start = token ? Number(Buffer.from(token, 'base64url').toString().replace(/^o:/, '')) : 0;
  if (!Number.isInteger(start) || start < 0) return c.json(googleError(400, 'invalid', 'Invalid Value'), 400);
  const end = start + size;
  return {
    rows: rows.slice(start, end),
    ...(end < rows.length ? { nextPageToken: Buffer.from(`o:${end}`).toString('base64url') } : {}),
  };
}

const FILE_DEFAULT = 'kind,id,name,mimeType';

export function mountFileRoutes(app: Hono, state: DriveState): void {
  const { data } = state;
  const random = seededRandom(99);
  const find = (c: Context) => data.files.find((f) => f.id === c.req.param('fileId'));
  const notFound = (c: Context) =>
    c.json(googleError(404, 'notFound', `File not found: ${c.req.param('fileId')}.`), 404);
  const touch = (file: DriveFile) => {
    file.modifiedTime = new Date(Math.max(Date.now(), Date.parse(file.modifiedTime) + 1)).toISOString();
    data.changes.push(changeOf(file, data.changes.length + 1));
  };

  app.get('/drive/v3/files', (c) => {
    const corpora = c.req.query('corpora') ?? 'user';
    const driveId = c.req.query('driveId');
    const all = c.req.query('includeItemsFromAllDrives') === 'true';
    if ((corpora === 'drive' || corpora === 'allDrives') && !all) {
      return c.json(
        googleError(403, 'teamDriveHierarchyTooLarge', 'includeItemsFromAllDrives must be true for this corpora.'),
        403,
      );
    }
    const matches = compileQuery(c.req.query('q'), data.rootId);
    const rows = data.files
      .filter((f) => (corpora === 'allDrives' ? true : corpora === 'drive' ? f.driveId === driveId : !f.driveId))
      .filter(matches)
      .sort(compileOrder(c.req.query('orderBy')));
    const page = pageOf(c, rows, 1000, 100);
    if (page instanceof Response) return page;
    return select(
      c,
      { kind: 'drive#fileList', incompleteSearch: false, ...page, files: page.rows, rows: undefined },
      `kind,nextPageToken,incompleteSearch,files(${FILE_DEFAULT})`,
    );
  });

  // https://developers.google.com/workspace/drive/api/reference/rest/v3/files/generateIds: ids a create may carry
  // (count 1-1000, default 10). Registered before files/{fileId}, which would otherwise take the path.
  const generatedIds = new Set<string>();
  app.get('/drive/v3/files/generateIds', (c) => {
    const count = Number(c.req.query('count') ?? 10);
    if (!Number.isInteger(count) || count < 1 || count > 1000) {
      return c.json(googleError(400, 'invalid', 'Invalid value for count: must be between 1 and 1000'), 400);
    }
    const ids = Array.from({ length: count }, () => fileId(random));
    for (const id of ids) generatedIds.add(id);
    return c.json({ kind: 'drive#generatedIds', space: c.req.query('space') ?? 'drive', ids });
  });

  /**
   * A create carrying an id (https://developers.google.com/workspace/drive/api/guides/create-file#generate-ids):
   * the id must be one generateIds handed out, and Google Workspace types other than folders cannot take one; once
   * the file exists, a retry of the create answers 409 Conflict and makes no duplicate.
   */
  const refusedId = (c: Context, body: Record<string, unknown>): Response | null => {
    if (body.id === undefined) return null;
    const id = String(body.id);
    if (data.files.some((f) => f.id === id)) {
      return c.json(googleError(409, 'duplicate', 'A file already exists with the provided ID.'), 409);
    }
    const mimeType = typeof body.mimeType === 'string' ? body.mimeType : '';
    const workspace = mimeType.startsWith('application/vnd.google-apps.') && mimeType !== FOLDER;
    if (!generatedIds.has(id) || workspace) {
      return c.json(googleError(400, 'invalid', 'The provided file ID is not usable.'), 400);
    }
    return null;
  };

  app.post('/drive/v3/files', async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as Record<string, unknown>;
    const refused = refusedId(c, body);
    if (refused) return refused;
    return c.json(
      applySelection(createFile(body, undefined), parseFields(c.req.query('fields') ?? FILE_DEFAULT)) as Record<
        string,
        unknown
      >,
    );
  });

  const createFile = (body: Record<string, unknown>, bytes: Buffer | undefined): DriveFile => {
    const mimeType =
      typeof body.mimeType === 'string'
        ? body.mimeType
        : bytes
          ? 'application/octet-stream'
          : 'application/octet-stream';
    const parents = Array.isArray(body.parents) && body.parents.length > 0 ? body.parents.map(String) : [data.rootId];
    const now = Date.now();
    const content = bytes
      ? { size: bytes.length, bytes }
      : mimeType.startsWith('application/vnd.google-apps.') && mimeType !== FOLDER
        ? { exportSize: 256 }
        : {};
    const file = buildFile(random, data, {
      name: typeof body.name === 'string' ? body.name : 'Untitled',
      mimeType,
      created: now,
      modified: now,
      content: bytes ? { size: bytes.length } : content,
      driveId: null,
      parent: parents[0]!,
      ...(body.id === undefined ? {} : { id: String(body.id) }),
    });
    file.parents = parents;
    if (typeof body.description === 'string') file.description = body.description;
    data.files.push(file);
    data.contents.set(file.id, content);
    data.changes.push(changeOf(file, data.changes.length + 1));
    return file;
  };

  // https://developers.google.com/workspace/drive/api/guides/manage-uploads#multipart
  app.post('/upload/drive/v3/files', async (c) => {
    if (c.req.query('uploadType') !== 'multipart')
      return c.json(googleError(400, 'badRequest', 'Only uploadType=multipart is simulated'), 400);
    const boundary = /boundary="?([^";]+)"?/.exec(c.req.header('content-type') ?? '')?.[1];
    if (!(c.req.header('content-type') ?? '').startsWith('multipart/related') || !boundary) {
      return c.json(googleError(400, 'badContent', 'Media type must be multipart/related'), 400);
    }
    const raw = Buffer.from(await c.req.arrayBuffer());
    const parts = splitMultipart(raw, boundary);
    if (parts.length !== 2)
      return c.json(googleError(400, 'badContent', 'Expected a metadata part and a media part'), 400);
    if (parts[1]!.length > UPLOAD_LIMIT)
      return c.json(googleError(413, 'uploadTooLarge', 'Multipart upload is limited to 5 MB'), 413);
    const metadata = JSON.parse(parts[0]!.toString('utf8')) as Record<string, unknown>;
    const refused = refusedId(c, metadata);
    if (refused) return refused;
    return c.json(
      applySelection(createFile(metadata, parts[1]!), parseFields(c.req.query('fields') ?? FILE_DEFAULT)) as Record<
        string,
        unknown
      >,
    );
  });

  app.get('/drive/v3/files/:fileId', (c) => {
    const file = find(c);
    if (!file) return notFound(c);
    if (c.req.query('alt') === 'media') return download(c, file);
    return select(c, file, FILE_DEFAULT);
  });

  app.patch('/drive/v3/files/:fileId', async (c) => {
    const file = find(c);
    if (!file) return notFound(c);
    const body = (await c.req.json().catch(() => ({}))) as Record<string, unknown>;
    for (const key of ['name', 'description', 'mimeType', 'starred', 'trashed'] as const)
      if (key in body) file[key] = body[key] as never;
    const add = (c.req.query('addParents') ?? '').split(',').filter(Boolean);
    const remove = new Set((c.req.query('removeParents') ?? '').split(',').filter(Boolean));
    file.parents = [...file.parents.filter((p) => !remove.has(p)), ...add.filter((p) => !file.parents.includes(p))];
    touch(file);
    return select(c, file, FILE_DEFAULT);
  });

  app.delete('/drive/v3/files/:fileId', (c) => {
    const file = find(c);
    if (!file) return notFound(c);
    data.files.splice(data.files.indexOf(file), 1);
    data.changes.push(changeOf(file, data.changes.length + 1, true));
    return c.body(null, 204);
  });

  app.get('/drive/v3/files/:fileId/export', (c) => {
    const file = find(c);
    if (!file) return notFound(c);
    const content = data.contents.get(file.id);
    if (content?.exportSize === undefined)
      return c.json(googleError(403, 'fileNotExportable', 'Export only supports Docs Editors files.'), 403);
    const mimeType = c.req.query('mimeType');
    if (!mimeType) return c.json(googleError(400, 'required', 'Required parameter: mimeType'), 400);
    if (!EXPORT_TYPES.has(mimeType))
      return c.json(googleError(400, 'badRequest', 'The requested conversion is not supported.'), 400);
    if (content.exportSize > EXPORT_LIMIT) {
      return c.json(googleError(403, 'exportSizeLimitExceeded', 'This file is too large to be exported.'), 403);
    }
    return stream(c, `${file.id}:${mimeType}`, content.exportSize, mimeType, file.id);
  });

  const download = (c: Context, file: DriveFile) => {
    const content = data.contents.get(file.id);
    if (content?.size === undefined) {
      return c.json(
        googleError(
          403,
          'fileNotDownloadable',
          'Only files with binary content can be downloaded. Use Export with Docs Editors files.',
        ),
        403,
      );
    }
    const bytes = (content as { bytes?: Buffer }).bytes;
    return stream(c, file.id, content.size, file.mimeType, file.id, bytes);
  };

  const stream = (c: Context, seed: string, length: number, type: string, fileId: string, bytes?: Buffer) => {
    const rangeHeader = c.req.header('range') ?? null;
    let start = 0;
    let end = length - 1;
    if (rangeHeader) {
      const range = parseRange(rangeHeader, length);
      if (!range) return c.body(null, 416, { 'content-range': `bytes */${length}` });
      ({ start, end } = range);
    }
    const log: DownloadLog = { fileId, range: rangeHeader, bytesSent: 0, state: 'streaming' };
    state.downloads.push(log);
    const body = bytes
      ? new Blob([new Uint8Array(bytes.subarray(start, end + 1))]).stream()
      : contentStream(seed, start, end, {
          onCancel: (sent) => Object.assign(log, { bytesSent: sent, state: 'cancelled' }),
          onDone: (sent) => Object.assign(log, { bytesSent: sent, state: 'done' }),
        });
    const headers: Record<string, string> = {
      'content-type': type,
      'content-length': String(end - start + 1),
      'accept-ranges': 'bytes',
    };
    if (rangeHeader) headers['content-range'] = `bytes ${start}-${end}/${length}`;
    return c.body(body, rangeHeader ? 206 : 200, headers);
  };
}

function splitMultipart(raw: Buffer, boundary: string): Buffer[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Buffer[] = [];
  let index = raw.indexOf(delimiter);
  while (index >= 0) {
    const next = raw.indexOf(delimiter, index + delimiter.length);
    if (next < 0) break;
    const part = raw.subarray(index + delimiter.length, next);
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd >= 0) parts.push(part.subarray(headerEnd + 4, part.length - 2));
    index = next;
  }
  return parts;
}

export { QueryError };
