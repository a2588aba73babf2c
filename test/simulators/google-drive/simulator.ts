import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { bearerToken } from '../kit/auth-header.ts';
import { FaultInjector } from '../kit/faults.ts';
import { kindOptions, type SimulatorHandle, type SimulatorOptions } from '../kit/fixture.ts';
import { listen, type RunningServer } from '../kit/server.ts';
import { DOCUMENT, type DriveDataOptions, generateDriveData, HUGE_DOCUMENT_NAME, LARGE_FILE_NAME } from './data.ts';
import { faultBody, googleError } from './errors.ts';
import { type DownloadLog, type DriveState, mountFileRoutes, QueryError } from './file-routes.ts';
import { mountResourceRoutes } from './resource-routes.ts';

export interface DriveSimulatorOptions extends DriveDataOptions {
  port?: number;
  /** Lifetime of issued access tokens (Google: 3599 s). */
  accessTokenTtlMs?: number;
}

export interface DriveSimulator extends RunningServer, DriveState {
  readonly faults: FaultInjector;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly refreshToken: string;
  readonly expiredAccessToken: string;
}

/**
 * Google Drive API v3 as a connector meets it: real paths under /drive/v3 and /upload/drive/v3, OAuth refresh at
 * /token (access tokens expire → 401), pageToken paging, a `q`/`orderBy`/`fields` subset, streamed media with
 * Range, export with its 10 MB limit, write semantics recorded in a change log, and Google-shaped errors.
 */
export function createDriveApp(sim: Omit<DriveSimulator, keyof RunningServer>, options: DriveSimulatorOptions): Hono {
  const app = new Hono();
  const { data } = sim;
  const tokens = new Map<string, number>([[sim.expiredAccessToken, 0]]);
  app.use('*', sim.faults.middleware(faultBody));
  app.onError((error, c) => {
    if (error instanceof QueryError) return c.json(googleError(400, 'invalid', error.message), 400);
    return c.json(googleError(500, 'backendError', 'Backend Error'), 500);
  });

  // https://developers.google.com/identity/protocols/oauth2/web-server#offline: refresh tokens do not rotate.
  app.post('/token', async (c) => {
    const form = new URLSearchParams(await c.req.text());
    if (form.get('client_id') !== sim.clientId || form.get('client_secret') !== sim.clientSecret) {
      return c.json({ error: 'invalid_client', error_description: 'The OAuth client was not found.' }, 401);
    }
    if (form.get('grant_type') !== 'refresh_token' || form.get('refresh_token') !== sim.refreshToken) {
      return c.json({ error: 'invalid_grant', error_description: 'Token has been expired or revoked.' }, 400);
    }
    const accessToken = `ya29.sim-${randomUUID()}`;
    const ttl = options.accessTokenTtlMs ?? 3_599_000;
    tokens.set(accessToken, Date.now() + ttl);
    return c.json({
      access_token: accessToken,
      expires_in: Math.round(ttl / 1000),
      scope: 'https://www.googleapis.com/auth/drive',
      token_type: 'Bearer',
    });
  });

  const authorize = async (c: Parameters<Parameters<Hono['use']>[1]>[0], next: () => Promise<void>) => {
    const token = bearerToken(c.req.header('authorization'));
    const until = token === undefined ? undefined : tokens.get(token);
    if (until === undefined || until < Date.now()) {
      return c.json(googleError(401, 'authError', 'Request had invalid authentication credentials.'), 401);
    }
    await next();
  };
  app.use('/drive/v3/*', authorize);
  app.use('/upload/drive/v3/*', authorize);

  mountFileRoutes(app, sim);

  mountResourceRoutes(app, data);
  app.notFound((c) => c.json(googleError(404, 'notFound', 'Not Found'), 404));
  return app;
}

export async function startGoogleDriveSimulator(options: DriveSimulatorOptions = {}): Promise<DriveSimulator> {
  const state: Omit<DriveSimulator, keyof RunningServer> = {
    data: generateDriveData(options),
    downloads: [] as DownloadLog[],
    faults: new FaultInjector(),
    clientId: 'drive-client.apps.example',
    clientSecret: 'drive-client-secret-41b7',
    refreshToken: '1//drive-refresh-token-8d2e',
    expiredAccessToken: 'ya29.expired-access-token',
  };
  const server = await listen(createDriveApp(state, options), options.port ?? 0);
  return { ...state, ...server };
}

/** The generic handle (kit/fixture.ts) over the Drive simulator; `size` scales the number of files. */
export async function startGoogleDrive(
  options: SimulatorOptions & { largeFileBytes?: number } = {},
): Promise<SimulatorHandle & DriveState> {
  const startDate = '2024-01-01T00:00:00Z';
  const sim = await startGoogleDriveSimulator({
    ...kindOptions(options, 'files'),
    ...(options.largeFileBytes === undefined ? {} : { largeFileBytes: options.largeFileBytes }),
  });
  const { data } = sim;
  const byName = (name: string) => data.files.find((f) => f.name === name)!;
  const document = data.files.find((f) => f.mimeType === DOCUMENT && f.name !== HUGE_DOCUMENT_NAME)!;
  const binary = data.files.find((f) => f.mimeType === 'text/plain' && !f.driveId)!;
  const commented = data.files.find((f) => (data.comments.get(f.id) ?? []).some((c) => c.replies.length > 0))!;
  const comment = data.comments.get(commented.id)!.find((c) => c.replies.length > 0)!;
  const folder = data.files.find((f) => f.mimeType === 'application/vnd.google-apps.folder')!;
  const scratch = data.files.find((f) => f.mimeType === 'image/png' && !f.driveId && f.id !== binary.id)!;
  const deletable = [...data.files]
    .reverse()
    .find((f) => f.mimeType === 'image/png' && !f.driveId && f.id !== scratch.id)!;
  return {
    ...sim,
    connectorType: 'Google-Drive',
    baseUrl: `${sim.url}/drive/v3`,
    tokenUrl: `${sim.url}/token`,
    credentials: {
      client_id: sim.clientId,
      client_secret: sim.clientSecret,
      refresh_token: sim.refreshToken,
      access_token: sim.expiredAccessToken,
    },
    badCredentials: {
      client_id: sim.clientId,
      client_secret: sim.clientSecret,
      refresh_token: '1//revoked-refresh-token',
      access_token: 'ya29.bogus-token',
    },
    config: {},
    replicationConfig: { start_date: startDate },
    examples: [
      { entity: 'files', action: 'list', params: { pageSize: 10, q: 'trashed = false', orderBy: 'modifiedTime desc' } },
      { entity: 'files', action: 'get', params: { fileId: binary.id } },
      {
        entity: 'files',
        action: 'create',
        params: { name: 'New folder', mimeType: 'application/vnd.google-apps.folder', parents: [folder.id] },
      },
      {
        entity: 'files',
        action: 'update',
        params: { fileId: scratch.id, name: 'renamed.png', addParents: folder.id, removeParents: scratch.parents[0] },
      },
      { entity: 'files', action: 'delete', params: { fileId: deletable.id } },
      { entity: 'files', action: 'download', params: { fileId: binary.id, alt: 'media', range_header: 'bytes=0-99' } },
      {
        entity: 'files_upload',
        action: 'create',
        params: {
          name: 'hello.txt',
          file_content: Buffer.from('hello, drive').toString('base64'),
          file_mime_type: 'text/plain',
        },
      },
      { entity: 'files_export', action: 'download', params: { fileId: document.id, mimeType: 'text/plain' } },
      { entity: 'drives', action: 'list', params: { pageSize: 2 } },
      { entity: 'drives', action: 'get', params: { driveId: data.drives[0]!.id } },
      { entity: 'permissions', action: 'list', params: { fileId: binary.id } },
      {
        entity: 'permissions',
        action: 'get',
        params: { fileId: binary.id, permissionId: data.permissions.get(binary.id)![0]!.id },
      },
      { entity: 'comments', action: 'list', params: { fileId: commented.id } },
      { entity: 'comments', action: 'get', params: { fileId: commented.id, commentId: comment.id } },
      { entity: 'replies', action: 'list', params: { fileId: commented.id, commentId: comment.id } },
      {
        entity: 'replies',
        action: 'get',
        params: { fileId: commented.id, commentId: comment.id, replyId: comment.replies[0]!.id },
      },
      { entity: 'revisions', action: 'list', params: { fileId: binary.id } },
      {
        entity: 'revisions',
        action: 'get',
        params: { fileId: binary.id, revisionId: data.revisions.get(binary.id)![0]!.id },
      },
      { entity: 'changes', action: 'list', params: { pageToken: '1' } },
      { entity: 'changes_start_page_token', action: 'get', params: {} },
      { entity: 'about', action: 'get', params: { fields: '*' } },
    ],
    expectedKeys: (entity) => {
      // files: modified since start_date and not trashed (the copy follows the changes feed).
      if (entity === 'files')
        return data.files
          .filter((f) => Date.parse(f.modifiedTime) >= Date.parse(startDate) && !f.trashed)
          .map((f) => f.id);
      // Only files is searchable (catalog): nothing else is replicated.
      return [];
    },
    largeFile: byName(LARGE_FILE_NAME),
  } as SimulatorHandle & DriveState;
}
