import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiProcess } from '../harness/api-process.ts';
import { closeInOrder, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { type DriveSimulator, startGoogleDriveSimulator } from '../simulators/google-drive/simulator.ts';

const FOLDER = 'application/vnd.google-apps.folder';
const CREATES = (r: { method: string; path: string }) => r.method === 'POST' && r.path === '/drive/v3/files';

interface Answer {
  status: number;
  replayed: string | null;
  retryAfter: string | null;
  body: { data?: { id?: string; name?: string }; code?: string; errors?: { path: string }[] };
}

async function startDrivePlatform(env: Record<string, string> = {}) {
  const sim = await startGoogleDriveSimulator({ files: 5 });
  const platform = await startTestPlatform({
    overrides: {
      baseUrls: { GOOGLE_DRIVE: `${sim.url}/drive/v3` },
      tokenUrls: { GOOGLE_DRIVE: `${sim.url}/token` },
    },
    worker: false,
    env,
  });
  const created = await platform.call('POST', '/api/v1/integrations/connectors', {
    customer_name: 'idempotency',
    connector_type: 'Google-Drive',
    name: 'files',
    credentials: { client_id: sim.clientId, client_secret: sim.clientSecret, refresh_token: sim.refreshToken },
    replication_config: { start_date: '2024-01-01T00:00:00Z' },
  });
  expect(created.status, await created.clone().text()).toBe(201);
  const id = ((await created.json()) as { connector_id: string }).connector_id;
  return { sim, platform, id };
}

/** Sends an execute call to `baseUrl` (the in-process API, or another process) with an Idempotency-Key. */
async function execute(
  platform: TestPlatform,
  connectorId: string,
  body: unknown,
  key: string | undefined,
  baseUrl = platform.url,
): Promise<Answer> {
  const response = await fetch(`${baseUrl}/api/v1/integrations/connectors/${connectorId}/execute`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await platform.token()}`,
      'content-type': 'application/json',
      ...(key === undefined ? {} : { 'idempotency-key': key }),
    },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    replayed: response.headers.get('idempotent-replayed'),
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as Answer['body'],
  };
}

const createFolder = (name: string) => ({ entity: 'files', action: 'create', params: { name, mimeType: FOLDER } });

describe('Idempotency-Key on execute writes', () => {
  let sim: DriveSimulator;
  let platform: TestPlatform;
  let id: string;
  const named = (name: string) => sim.data.files.filter((f) => f.name === name);

  beforeAll(async () => {
    ({ sim, platform, id } = await startDrivePlatform());
  }, 90_000);
  afterAll(async () => {
    sim?.faults.release();
    await platform?.close();
    await sim?.close();
  });

  it('replays the first answer to the same key and request, with Idempotent-Replayed, and makes one folder', async () => {
    const key = randomUUID();
    const name = `replay-${key}`;
    const first = await execute(platform, id, createFolder(name), key);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.replayed).toBeNull();
    // The create carried an id from files/generateIds.
    expect(sim.faults.requests.some((r) => r.path === '/drive/v3/files/generateIds')).toBe(true);
    const creates = sim.faults.requests.filter(CREATES).length;

    const second = await execute(platform, id, createFolder(name), key);
    expect(second.status).toBe(200);
    expect(second.replayed).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(sim.faults.requests.filter(CREATES).length).toBe(creates);
    expect(named(name)).toHaveLength(1);
    expect(named(name)[0]!.id).toBe(first.body.data?.id);
  });

  it('the same key with a different request is 422 idempotency_key_reused, and nothing is created', async () => {
    const key = randomUUID();
    expect((await execute(platform, id, createFolder(`a-${key}`), key)).status).toBe(200);
    const other = await execute(platform, id, createFolder(`b-${key}`), key);
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency_key_reused');
    expect(named(`b-${key}`)).toHaveLength(0);
  });

  it('racing duplicates: one runs, the others get 409 idempotency_in_progress with Retry-After; one folder', async () => {
    const key = randomUUID();
    const name = `race-${key}`;
    sim.faults.add({ hold: true, count: 1, method: 'POST', pathIncludes: '/drive/v3/files' });
    const heldBefore = sim.faults.requests.filter(CREATES).length;
    const holdsBefore = sim.faults.heldTotal;
    const calls = Array.from({ length: 5 }, () => execute(platform, id, createFolder(name), key));
    // Four answer while the fifth's create is held upstream; which one runs is the database's choice.
    const settled: Answer[] = [];
    await new Promise<void>((resolve) => {
      for (const call of calls) {
        void call.then((answer) => {
          settled.push(answer);
          if (settled.length === 4) resolve();
        });
      }
    });
    for (const answer of settled) {
      expect(answer.status).toBe(409);
      expect(answer.body.code).toBe('idempotency_in_progress');
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
    }
    // The one that runs has its create held upstream (it may get there after the others answered).
    await sim.faults.held(holdsBefore + 1);
    sim.faults.release();
    const answers = await Promise.all(calls);
    const ran = answers.filter((a) => a.status === 200);
    expect(ran).toHaveLength(1);
    expect(ran[0]!.replayed).toBeNull();
    expect(sim.faults.requests.filter(CREATES).length - heldBefore).toBe(1);
    expect(named(name)).toHaveLength(1);

    const after = await execute(platform, id, createFolder(name), key);
    expect(after.status).toBe(200);
    expect(after.replayed).toBe('true');
    expect(after.body).toEqual(ran[0]!.body);
  });

  it('a key whose 24 h are over is forgotten: the request runs again', async () => {
    const key = randomUUID();
    const name = `expiry-${key}`;
    expect((await execute(platform, id, createFolder(name), key)).status).toBe(200);
    // Time passes: the key's expiry is moved into the past in the database (the API reads it with now()).
    const db = new pg.Client({ connectionString: platform.api.deps.env.DATABASE_URL });
    await db.connect();
    try {
      const aged = await db.query(
        `update idempotency_keys set expires_at = now() - interval '1 second' where key = $1`,
        [key],
      );
      expect(aged.rowCount).toBe(1);
    } finally {
      await db.end();
    }
    const again = await execute(platform, id, createFolder(name), key);
    expect(again.status).toBe(200);
    expect(again.replayed).toBeNull();
    expect(named(name)).toHaveLength(2);
  });

  it('a failure worth retrying (the upstream rate limit) frees the key; the retry runs and is then replayed', async () => {
    const key = randomUUID();
    const name = `limited-${key}`;
    sim.faults.add({ status: 429, count: 1, retryAfterSeconds: 120, method: 'POST', pathIncludes: '/drive/v3/files' });
    const limited = await execute(platform, id, createFolder(name), key);
    expect(limited.status).toBe(429);
    // The two minutes pass: the upstream's pause of the connector (its budget in Redis) is over.
    await platform.api.deps.redis.del(`${platform.namespace}:budget:{${id}}:pause`);
    const retried = await execute(platform, id, createFolder(name), key);
    expect(retried.status).toBe(200);
    expect(retried.replayed).toBeNull();
    expect((await execute(platform, id, createFolder(name), key)).replayed).toBe('true');
    expect(named(name)).toHaveLength(1);
  });

  it('an upstream refusal is kept: the retry replays the same 400 upstream_rejected', async () => {
    const key = randomUUID();
    sim.faults.add({ status: 400, count: 1, method: 'POST', pathIncludes: '/drive/v3/files' });
    const refused = await execute(platform, id, createFolder(`refused-${key}`), key);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('upstream_rejected');
    const replayed = await execute(platform, id, createFolder(`refused-${key}`), key);
    expect(replayed.status).toBe(400);
    expect(replayed.replayed).toBe('true');
    expect(replayed.body).toEqual(refused.body);
  });

  it('reads ignore the key; a malformed key is a 400 naming the header', async () => {
    const list = { entity: 'files', action: 'list', params: { pageSize: 2 } };
    const key = randomUUID();
    expect((await execute(platform, id, list, key)).replayed).toBeNull();
    expect((await execute(platform, id, list, key)).replayed).toBeNull();
    const bad = await execute(platform, id, createFolder('bad-key'), 'k'.repeat(256));
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.[0]?.path).toBe('/headers/Idempotency-Key');
  });
});

describe('Idempotency-Key across a crash', () => {
  let sim: DriveSimulator;
  let platform: TestPlatform;
  let id: string;
  let doomed: ApiProcess | undefined;

  beforeAll(async () => {
    // A short lease: the call that takes over a dead one's key does not wait 30 s.
    ({ sim, platform, id } = await startDrivePlatform({ IDEMPOTENCY_LEASE: '1s' }));
  }, 90_000);
  afterAll(async () => {
    sim?.faults.release();
    await doomed?.kill();
    await closeInOrder(platform, sim);
  });

  it('an API killed (SIGKILL) after the upstream created the file and before the answer was kept: the retry makes no second file', async () => {
    doomed = await ApiProcess.start(
      { ...platform.api.deps.env, IDEMPOTENCY_LEASE: '1s' },
      {
        CONNECTOR_BASE_URL_GOOGLE_DRIVE: `${sim.url}/drive/v3`,
        CONNECTOR_TOKEN_URL_GOOGLE_DRIVE: `${sim.url}/token`,
      },
    );
    const key = randomUUID();
    const name = `crash-${key}`;
    // Drive applies the create, then its answer is held: the API has sent the call and not heard back.
    sim.faults.add({ holdAnswer: true, count: 1, method: 'POST', pathIncludes: '/drive/v3/files' });
    const createsBefore = sim.faults.requests.filter(CREATES).length;
    const holdsBefore = sim.faults.heldTotal;
    const lost = execute(platform, id, createFolder(name), key, doomed.url).catch((error: unknown) => error);
    await sim.faults.held(holdsBefore + 1);
    expect(named(name)).toHaveLength(1);
    await doomed.kill();
    expect(await lost).toBeInstanceOf(Error);
    sim.faults.release();

    // The caller retries on another API instance: in progress until the dead call's lease runs out, then it takes
    // the key over and sends the same pre-generated id; Drive answers 409 (already made) and the file is the answer.
    let answer = await execute(platform, id, createFolder(name), key);
    const conflicts: Answer[] = [];
    while (answer.status === 409) {
      conflicts.push(answer);
      expect(answer.body.code).toBe('idempotency_in_progress');
      await new Promise((r) => setTimeout(r, Number(answer.retryAfter) * 1000));
      answer = await execute(platform, id, createFolder(name), key);
    }
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(named(name)).toHaveLength(1);
    expect(answer.body.data?.id).toBe(named(name)[0]!.id);
    expect(answer.body.data?.name).toBe(name);
    // Two creates reached Drive with the same id: the one that made the file, and the retry it refused (409).
    expect(sim.faults.requests.filter(CREATES).length - createsBefore).toBe(2);
    expect((await execute(platform, id, createFolder(name), key)).replayed).toBe('true');
  }, 90_000);

  function named(name: string) {
    return sim.data.files.filter((f) => f.name === name);
  }
});
