import type { Hono } from 'hono';
import { DOCUMENT, type DriveData, type DriveRecord } from './data.ts';
import { googleError } from './errors.ts';
import { pageOf, select } from './file-routes.ts';

/** Shared drives, a file's permissions/comments/replies/revisions, the change log and about. */
export function mountResourceRoutes(app: Hono, data: DriveData): void {
  app.get('/drive/v3/drives', (c) => {
    const page = pageOf(c, data.drives, 100, 10);
    if (page instanceof Response) return page;
    return select(
      c,
      { kind: 'drive#driveList', nextPageToken: page.nextPageToken, drives: page.rows },
      'kind,nextPageToken,drives(kind,id,name)',
    );
  });
  app.get('/drive/v3/drives/:driveId', (c) => {
    const drive = data.drives.find((d) => d.id === c.req.param('driveId'));
    return drive
      ? select(c, drive, 'kind,id,name')
      : c.json(googleError(404, 'notFound', `Shared drive not found: ${c.req.param('driveId')}`), 404);
  });

  const fileChildren = <T extends { id: string }>(
    path: string,
    source: Map<string, T[]>,
    listKey: string,
    fallback: string | null,
    max: number,
  ) => {
    const missingFields = (c: { req: { query(k: string): string | undefined } }) =>
      fallback === null && c.req.query('fields') === undefined;
    const fieldsError = googleError(400, 'required', "The 'fields' parameter is required for this method.");
    app.get(`/drive/v3/files/:fileId/${path}`, (c) => {
      const rows = source.get(c.req.param('fileId'));
      if (!rows) return c.json(googleError(404, 'notFound', `File not found: ${c.req.param('fileId')}.`), 404);
      if (missingFields(c)) return c.json(fieldsError, 400);
      const page = pageOf(c, rows, max, Math.min(max, 100));
      if (page instanceof Response) return page;
      return select(
        c,
        { kind: `drive#${listKey.replace(/s$/, '')}List`, nextPageToken: page.nextPageToken, [listKey]: page.rows },
        `kind,nextPageToken,${listKey}(${fallback})`,
      );
    });
    app.get(`/drive/v3/files/:fileId/${path}/:id`, (c) => {
      const found = source.get(c.req.param('fileId'))?.find((r) => r.id === c.req.param('id'));
      if (!found) return c.json(googleError(404, 'notFound', `Not found: ${c.req.param('id')}.`), 404);
      if (missingFields(c)) return c.json(fieldsError, 400);
      return select(c, found, fallback ?? '*');
    });
  };
  fileChildren('permissions', data.permissions, 'permissions', 'kind,id,type,role', 100);
  fileChildren('comments', data.comments, 'comments', null, 100);
  fileChildren('revisions', data.revisions, 'revisions', 'kind,id,mimeType,modifiedTime', 1000);
  const replies = new Map<string, { id: string }[]>();
  for (const comments of data.comments.values())
    for (const comment of comments) replies.set(comment.id, comment.replies);
  app.get('/drive/v3/files/:fileId/comments/:commentId/replies', (c) => {
    const rows = replies.get(c.req.param('commentId'));
    if (!rows) return c.json(googleError(404, 'notFound', `Comment not found: ${c.req.param('commentId')}.`), 404);
    if (c.req.query('fields') === undefined)
      return c.json(googleError(400, 'required', "The 'fields' parameter is required for this method."), 400);
    const page = pageOf(c, rows, 100, 20);
    if (page instanceof Response) return page;
    return select(c, { kind: 'drive#replyList', nextPageToken: page.nextPageToken, replies: page.rows }, '*');
  });
  app.get('/drive/v3/files/:fileId/comments/:commentId/replies/:replyId', (c) => {
    const reply = replies.get(c.req.param('commentId'))?.find((r) => r.id === c.req.param('replyId'));
    if (!reply) return c.json(googleError(404, 'notFound', `Reply not found: ${c.req.param('replyId')}.`), 404);
    if (c.req.query('fields') === undefined)
      return c.json(googleError(400, 'required', "The 'fields' parameter is required for this method."), 400);
    return select(c, reply, '*');
  });

  // https://developers.google.com/workspace/drive/api/guides/manage-changes
  app.get('/drive/v3/changes/startPageToken', (c) =>
    c.json({ kind: 'drive#startPageToken', startPageToken: String(data.changes.length + 1) }),
  );
  // https://developers.google.com/workspace/drive/api/reference/rest/v3/changes/list: a page token is a position in
  // the user's change log; each page lists, for every file changed since, its current state (one change per file,
  // the latest: a file edited twice appears once, where it last changed); `removed` marks a file deleted forever or
  // no longer visible (a trashed file is a change with file.trashed = true, not a removal). includeRemoved
  // (default true) keeps removals; shared-drive files need includeItemsFromAllDrives=true. The last page carries
  // newStartPageToken, every other page nextPageToken.
  app.get('/drive/v3/changes', (c) => {
    const token = c.req.query('pageToken');
    if (!token) return c.json(googleError(400, 'required', 'Required parameter: pageToken'), 400);
    const from = Number(token);
    const size = Number(c.req.query('pageSize') ?? 100);
    if (!Number.isInteger(from) || from < 1 || from > data.changes.length + 1)
      return c.json(googleError(400, 'invalid', 'Invalid Value'), 400);
    if (!Number.isInteger(size) || size < 1 || size > 1000)
      return c.json(googleError(400, 'invalidParameter', 'Values must be within the range: [1, 1000]'), 400);
    const includeRemoved = c.req.query('includeRemoved') !== 'false';
    const allDrives = c.req.query('includeItemsFromAllDrives') === 'true';
    const lastPosition = new Map<string, number>();
    for (const change of data.changes) lastPosition.set(String(change.fileId), Number(change.id));
    const rows: DriveRecord[] = [];
    let position = from;
    for (; position <= data.changes.length && rows.length < size; position++) {
      const change = data.changes[position - 1]!;
      if (lastPosition.get(String(change.fileId)) !== position) continue;
      if (change.removed === true && !includeRemoved) continue;
      if (change.driveId && !allDrives) continue;
      rows.push(change);
    }
    const body =
      position <= data.changes.length
        ? { nextPageToken: String(position) }
        : { newStartPageToken: String(data.changes.length + 1) };
    return select(c, { kind: 'drive#changeList', ...body, changes: rows }, '*');
  });

  app.get('/drive/v3/about', (c) => {
    if (c.req.query('fields') === undefined)
      return c.json(googleError(400, 'required', "The 'fields' parameter is required for this method."), 400);
    return select(
      c,
      {
        kind: 'drive#about',
        user: data.user,
        storageQuota: { limit: '16106127360', usage: '2147483648', usageInDrive: '1073741824', usageInDriveTrash: '0' },
        maxUploadSize: '5242880000000',
        appInstalled: false,
        canCreateDrives: true,
        importFormats: {},
        exportFormats: { [DOCUMENT]: ['application/pdf', 'text/plain'] },
      },
      '*',
    );
  });
}
