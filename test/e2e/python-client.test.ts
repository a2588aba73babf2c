import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { LIST_PAGING } from '@conduit/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForIdleEntities } from '../harness/connector-status.ts';
import { createConnector, simulatorConnector } from '../harness/create-connector.ts';
import { ALL_ENTITIES_AT_ONCE, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import type { DriveState } from '../simulators/google-drive/file-routes.ts';
import { startGoogleDrive } from '../simulators/google-drive/simulator.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';
import { startOrb } from '../simulators/orb/simulator.ts';

/**
 * The Python client (clients/python) against the running platform: installed with pip from its folder with no
 * network (`--no-index`), then its unittest suite run with the machine's python3, pointed at an Orb connector
 * (search, SQL, change feed, live list) and a Google Drive one (a streamed download).
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });
const hasPython = python.status === 0;
/** Every test of clients/python/tests; a new one raises this count. */
const PYTHON_TESTS = 18;
const SIZE = 7;
const DOWNLOAD_BYTES = 3 * 1024 * 1024 + 123;

if (!hasPython)
  console.warn('python-client: python3 is not installed on this machine, so the Python client is not tested');

describe.skipIf(!hasPython)('the Python client against the platform', () => {
  let orb: SimulatorHandle;
  let drive: SimulatorHandle & DriveState & { largeFile: { id: string } };
  let platform: TestPlatform;
  let target: string;
  const ids = { orb: '', drive: '' };

  beforeAll(async () => {
    orb = await startOrb({ size: SIZE });
    drive = (await startGoogleDrive({ size: 5, largeFileBytes: DOWNLOAD_BYTES })) as typeof drive;
    platform = await startTestPlatform({
      overrides: {
        baseUrls: { ORB: orb.baseUrl, GOOGLE_DRIVE: drive.baseUrl },
        tokenUrls: { GOOGLE_DRIVE: drive.tokenUrl! },
        // The simulators enforce no plan's limit: the client's calls need not wait on the upstream budget.
        rateLimits: { ORB: 1000, GOOGLE_DRIVE: 1000 },
      },
      env: ALL_ENTITIES_AT_ONCE,
    });
    ids.orb = await createConnector(platform, simulatorConnector(orb, 'python'));
    ids.drive = await createConnector(platform, simulatorConnector(drive, 'python'));
    await waitForIdleEntities(platform, ids.orb, ['customers']);
    target = mkdtempSync(join(tmpdir(), 'conduit-python-'));
  }, 180_000);

  afterAll(async () => {
    await platform?.close();
    await orb?.close();
    await drive?.close();
    if (target) rmSync(target, { recursive: true, force: true });
  });

  it('installs with pip from its folder with no network', async () => {
    await run(
      'python3',
      ['-m', 'pip', 'install', '--quiet', '--no-index', '--no-build-isolation', '--target', target, 'clients/python'],
      { cwd: root, env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1' } },
    );
    const { stdout } = await run(
      'python3',
      [
        '-c',
        'import conduit_client, os; print(conduit_client.__file__); print(os.path.exists(os.path.join(os.path.dirname(conduit_client.__file__), "py.typed")))',
      ],
      { cwd: tmpdir(), env: { ...process.env, PYTHONPATH: target } },
    );
    expect(stdout.split('\n').slice(0, 2)).toEqual([join(target, 'conduit_client', '__init__.py'), 'True']);
  }, 60_000);

  it('knows how every built-in kind’s live list pages, as the TypeScript client does', async () => {
    const { stdout } = await run(
      'python3',
      ['-c', 'import json, conduit_client._paging as p; print(json.dumps(p.LIST_PAGING))'],
      { cwd: root, env: { ...process.env, PYTHONPATH: join(root, 'clients/python/src') } },
    );
    expect(JSON.parse(stdout)).toEqual(JSON.parse(JSON.stringify(LIST_PAGING)));
  });

  it(`passes its ${PYTHON_TESTS} unittest tests against the real API, none skipped`, async () => {
    // Asynchronously: the API runs in this process, so a synchronous child would leave nobody to answer it.
    const child = await run('python3', ['-m', 'unittest', 'discover', '-v', 'clients/python/tests'], {
      cwd: root,
      timeout: 120_000,
      env: {
        ...process.env,
        // The installed copy, not the source folder: what a user gets from pip is what is tested.
        PYTHONPATH: target,
        CONDUIT_BASE_URL: platform.url,
        CONDUIT_CLIENT_ID: platform.clientId,
        CONDUIT_CLIENT_SECRET: platform.clientSecret,
        CONDUIT_ORB_CONNECTOR_ID: ids.orb,
        CONDUIT_ORB_CUSTOMERS: String(orb.expectedKeys('customers').length),
        CONDUIT_DRIVE_CONNECTOR_ID: ids.drive,
        CONDUIT_DRIVE_FILE_ID: drive.largeFile.id,
        CONDUIT_DRIVE_FILE_BYTES: String(DOWNLOAD_BYTES),
      },
    }).then(
      (done) => ({ status: 0, ...done }),
      (failed: { code?: number; stdout?: string; stderr?: string }) => ({
        status: failed.code ?? -1,
        stdout: failed.stdout ?? '',
        stderr: failed.stderr ?? '',
      }),
    );
    const output = `${child.stdout}${child.stderr}`;
    expect(child.status, output).toBe(0);
    expect(output).toMatch(new RegExp(`Ran ${PYTHON_TESTS} tests in`));
    expect(output, 'nothing skipped').toMatch(/\nOK\n/);
  }, 150_000);
});
