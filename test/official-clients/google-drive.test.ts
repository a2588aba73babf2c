import { auth, drive, type drive_v3 } from '@googleapis/drive';
import { beforeAll, describe, expect, it } from 'vitest';
import { simulatorForAll } from '../harness/simulator-for-all.ts';
import { startGoogleDriveSimulator } from '../simulators/google-drive/simulator.ts';

/**
 * Google's official Drive client (@googleapis/drive, with google-auth-library's OAuth2 client) against our Drive
 * simulator: the client refreshes the expired access token at our token endpoint, then lists, pages, gets,
 * downloads and reads the changes feed; errors arrive as the client's GaxiosError with the status.
 */
describe('@googleapis/drive (official client) against the Drive simulator', () => {
  const sim = simulatorForAll(() => startGoogleDriveSimulator({ files: 30 }));
  let api: drive_v3.Drive;
  beforeAll(() => {
    const oauth = new auth.OAuth2({
      clientId: sim.clientId,
      clientSecret: sim.clientSecret,
      endpoints: { oauth2TokenUrl: `${sim.url}/token` },
    });
    oauth.setCredentials({ access_token: sim.expiredAccessToken, refresh_token: sim.refreshToken });
    api = drive({ version: 'v3', auth: oauth, rootUrl: `${sim.url}/`, retry: false });
  });

  it('refreshes the expired token, then pages through every file of My Drive with pageToken', async () => {
    const ids: string[] = [];
    let pageToken: string | undefined;
    let pages = 0;
    do {
      const page = await api.files.list({
        pageSize: 7,
        q: 'trashed = false',
        fields: 'nextPageToken, files(id, name, mimeType)',
        ...(pageToken ? { pageToken } : {}),
      });
      for (const file of page.data.files ?? []) ids.push(file.id!);
      pageToken = page.data.nextPageToken ?? undefined;
      pages++;
    } while (pageToken);
    const expected = sim.data.files.filter((f) => !f.driveId && !f.trashed).map((f) => f.id);
    expect(pages).toBeGreaterThan(1);
    expect(ids.sort()).toEqual(expected.sort());
  });

  it('gets a file with selected fields and downloads its content (alt=media)', async () => {
    const file = sim.data.files.find((f) => f.mimeType === 'text/plain' && !f.driveId)!;
    const meta = await api.files.get({ fileId: file.id, fields: 'id,name,mimeType' });
    expect(meta.data).toMatchObject({ id: file.id, name: file.name, mimeType: 'text/plain' });
    const media = await api.files.get({ fileId: file.id, alt: 'media' }, { responseType: 'arraybuffer' });
    expect(media.status).toBe(200);
    expect((media.data as unknown as ArrayBuffer).byteLength).toBeGreaterThan(0);
  });

  it('reads the changes feed from a start page token to newStartPageToken', async () => {
    const start = await api.changes.getStartPageToken({});
    expect(start.data.startPageToken).toBe(String(sim.data.changes.length + 1));
    let pageToken: string | undefined = '1';
    let seen = 0;
    let newStart: string | undefined;
    while (pageToken) {
      const page: { data: drive_v3.Schema$ChangeList } = await api.changes.list({
        pageToken,
        pageSize: 10,
        includeItemsFromAllDrives: true,
        supportsAllDrives: true,
      });
      seen += page.data.changes?.length ?? 0;
      pageToken = page.data.nextPageToken ?? undefined;
      newStart = page.data.newStartPageToken ?? newStart;
    }
    // One change per file, its latest (Drive lists a file's current state once).
    expect(seen).toBe(new Set(sim.data.changes.map((c) => String(c.fileId))).size);
    expect(newStart).toBe(start.data.startPageToken);
  });

  it('answers an unknown file with the 404 the client raises', async () => {
    const error = (await api.files.get({ fileId: 'no-such-file' }).catch((e: unknown) => e)) as { status?: number };
    expect(error.status).toBe(404);
  });

  it('answers a token it never issued, without a refresh token, with 401', async () => {
    const oauth = new auth.OAuth2({ clientId: sim.clientId, clientSecret: sim.clientSecret });
    oauth.setCredentials({ access_token: 'ya29.never-issued' });
    const stranger = drive({ version: 'v3', auth: oauth, rootUrl: `${sim.url}/`, retry: false });
    const error = (await stranger.files.list({}).catch((e: unknown) => e)) as { status?: number };
    expect(error.status).toBe(401);
  });
});
