import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchAllIds, waitForEntity } from '../harness/connector-status.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { changeOf } from '../simulators/google-drive/file-factory.ts';
import { type DriveSimulator, startGoogleDriveSimulator } from '../simulators/google-drive/simulator.ts';

const START = '2024-01-01T00:00:00Z';

/**
 * Drive files become searchable: replicated from start_date, kept current through the changes
 * feed, searchable with every operator; writes through execute are in the copy when execute answers.
 */
describe('Google Drive files search', () => {
  let sim: DriveSimulator;
  let platform: TestPlatform;
  let id: string;
  const inScope = () => sim.data.files.filter((f) => Date.parse(f.modifiedTime) >= Date.parse(START) && !f.trashed);
  const execute = async (body: unknown) => {
    const response = await platform.call('POST', `/api/v1/integrations/connectors/${id}/execute`, body);
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as { data: Record<string, unknown>[] & Record<string, unknown> };
  };
  const searchIds = async (filter: unknown) =>
    (await execute({ entity: 'files', action: 'search', params: { query: { filter }, limit: 1000 } })).data
      .map((f) => String(f.id))
      .sort();
  const changesRun = async () => {
    const before = (await platform.call('GET', `/api/v1/integrations/connectors/${id}`).then((r) => r.json())) as {
      entities: { files: { last_success_at: string } };
    };
    expect(
      (await platform.call('POST', `/api/v1/integrations/connectors/${id}/sync`, { entity: 'files' })).status,
    ).toBe(202);
    await waitForEntity(
      platform,
      id,
      'files',
      (s) => s.last_success_at !== before.entities.files.last_success_at && !s.running,
    );
  };

  beforeAll(async () => {
    sim = await startGoogleDriveSimulator({ files: 40 });
    platform = await startTestPlatform({
      overrides: {
        baseUrls: { GOOGLE_DRIVE: `${sim.url}/drive/v3` },
        tokenUrls: { GOOGLE_DRIVE: `${sim.url}/token` },
      },
    });
    const created = await platform.call('POST', '/api/v1/integrations/connectors', {
      customer_name: 'drive',
      connector_type: 'Google-Drive',
      name: 'files',
      credentials: { client_id: sim.clientId, client_secret: sim.clientSecret, refresh_token: sim.refreshToken },
      replication_config: { start_date: START },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    id = ((await created.json()) as { connector_id: string }).connector_id;
    await waitForEntity(platform, id, 'files', (s) => s.status === 'ready' && !s.running);
  }, 90_000);
  afterAll(async () => {
    await platform?.close();
    await sim?.close();
  });

  it('replicates the files modified since start_date, not trashed', async () => {
    expect((await searchAllIds(platform, id, 'files')).sort()).toEqual(
      inScope()
        .map((f) => f.id)
        .sort(),
    );
  });

  it('searches with like on name, eq on mimeType, gt on modifiedTime', async () => {
    const sample = inScope()[0]!;
    const word = sample.name.slice(0, 4);
    expect(await searchIds({ like: { name: `%${word}%` } })).toEqual(
      inScope()
        .filter((f) => f.name.toLowerCase().includes(word.toLowerCase()))
        .map((f) => f.id)
        .sort(),
    );
    expect(await searchIds({ eq: { mimeType: sample.mimeType } })).toEqual(
      inScope()
        .filter((f) => f.mimeType === sample.mimeType)
        .map((f) => f.id)
        .sort(),
    );
    const median = inScope()
      .map((f) => f.modifiedTime)
      .sort()[Math.floor(inScope().length / 2)]!;
    expect(await searchIds({ gt: { modifiedTime: median } })).toEqual(
      inScope()
        .filter((f) => Date.parse(f.modifiedTime) > Date.parse(median))
        .map((f) => f.id)
        .sort(),
    );
  });

  it('a trashed, a removed and a renamed file reach the copy through the next changes run', async () => {
    const [trashed, removed, renamed] = inScope().filter((f) => !f.driveId);
    // Upstream changes, as Drive records them in its change log (another client did them).
    trashed!.trashed = true;
    trashed!.modifiedTime = new Date().toISOString();
    sim.data.changes.push(changeOf(trashed!, sim.data.changes.length + 1));
    sim.data.files.splice(sim.data.files.indexOf(removed!), 1);
    sim.data.changes.push(changeOf(removed!, sim.data.changes.length + 1, true));
    renamed!.name = 'renamed-upstream.txt';
    renamed!.modifiedTime = new Date().toISOString();
    sim.data.changes.push(changeOf(renamed!, sim.data.changes.length + 1));

    const listings = sim.faults.requests.filter((r) => r.path === '/drive/v3/files').length;
    await changesRun();
    // The changes run read the feed, not the whole file list.
    expect(sim.faults.requests.filter((r) => r.path === '/drive/v3/files').length).toBe(listings);
    const ids = await searchAllIds(platform, id, 'files');
    expect(ids).not.toContain(trashed!.id);
    expect(ids).not.toContain(removed!.id);
    expect(await searchIds({ eq: { name: 'renamed-upstream.txt' } })).toEqual([renamed!.id]);
    expect(ids.sort()).toEqual(
      inScope()
        .map((f) => f.id)
        .sort(),
    );
  }, 60_000);

  it('writes through execute are searchable when execute answers (read-your-writes)', async () => {
    const uploaded = await execute({
      entity: 'files_upload',
      action: 'create',
      params: {
        name: 'ryw-upload.txt',
        file_content: Buffer.from('hi').toString('base64'),
        file_mime_type: 'text/plain',
      },
    });
    const newId = String(uploaded.data.id);
    expect(await searchIds({ eq: { name: 'ryw-upload.txt' } })).toEqual([newId]);

    await execute({ entity: 'files', action: 'update', params: { fileId: newId, name: 'ryw-renamed.txt' } });
    expect(await searchIds({ eq: { name: 'ryw-renamed.txt' } })).toEqual([newId]);

    await execute({ entity: 'files', action: 'delete', params: { fileId: newId } });
    expect(await searchIds({ eq: { id: newId } })).toEqual([]);
  }, 30_000);
});
