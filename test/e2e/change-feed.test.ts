import { Conduit } from '@conduit/client';
import { purgeExpired } from '@conduit/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entityStatuses, waitForEntity } from '../harness/connector-status.ts';
import { orbConnectorWithWebhooks } from '../harness/orb-connector.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { type OrbSimulator, startOrbSimulator } from '../simulators/orb/simulator.ts';
import { orbCustomerEvent } from '../simulators/orb/webhooks.ts';

interface ChangeEvent {
  id: string;
  type: 'record.created' | 'record.updated' | 'record.deleted';
  entity: string;
  key: string;
  record?: Record<string, unknown>;
  changed_at: string;
  source: string;
}
interface ChangesPage {
  data: ChangeEvent[];
  meta: { cursor: string; has_more: boolean };
}

const START = '2020-01-01T00:00:00Z';

describe('the change feed: every change the copy applied, in order (GET .../changes)', () => {
  let sim: OrbSimulator;
  let platform: TestPlatform;
  let id: string;
  const changesPath = (query: string) => `/api/v1/integrations/connectors/${id}/changes${query}`;
  const changes = async (query = '') => {
    const response = await platform.call('GET', changesPath(query));
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as ChangesPage;
  };
  /** Every event after `cursor`, paging through the feed. */
  const allAfter = async (cursor: string | null, entity = 'customers') => {
    const events: ChangeEvent[] = [];
    let after = cursor;
    for (;;) {
      const page = await changes(`?limit=7&entity=${entity}${after === null ? '' : `&after=${after}`}`);
      events.push(...page.data);
      after = page.meta.cursor;
      if (!page.meta.has_more) return { events, cursor: after };
    }
  };
  const announce = async (key: string) => {
    const { eventId, body } = orbCustomerEvent('customer.edited', { id: key });
    expect(await sim.webhooks.sender.emit(body, eventId)).toBe(202);
    await eventually(async () =>
      platform.logLines.some((line) => line.includes('webhook event processed') && line.includes(eventId))
        ? true
        : undefined,
    );
  };
  const fullPass = async () => {
    const before = (await entityStatuses(platform, id)).customers!;
    const response = await platform.call('POST', `/api/v1/integrations/connectors/${id}/sync`, {
      entity: 'customers',
      mode: 'full',
    });
    expect(response.status).toBe(202);
    await waitForEntity(platform, id, 'customers', (s) => s.last_success_at !== before.last_success_at && !s.running);
  };

  beforeAll(async () => {
    sim = await startOrbSimulator({ customers: 12, subscriptionsPerCustomer: 0 });
    platform = await startTestPlatform({ overrides: { baseUrls: { ORB: sim.url }, tokenUrls: {} } });
    id = await orbConnectorWithWebhooks(platform, sim, 'feed', START);
  }, 120_000);
  afterAll(async () => {
    await platform?.close();
    await sim?.close();
  });

  it('the first pass makes one record.created per record, with the record, paged in order', async () => {
    const { events } = await allAfter(null);
    expect(events.map((e) => e.key).sort()).toEqual(sim.data.customers.map((c) => c.id).sort());
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(['record.created']));
    expect(new Set(events.map((e) => e.source))).toEqual(new Set(['full_pass']));
    const first = sim.data.customers.find((c) => c.id === events[0]!.key)!;
    expect(events[0]!.record).toMatchObject({ id: first.id, email: first.email });
    // Ids are unique and grow with the order the copy applied the changes.
    const numbers = events.map((e) => Number(e.id.split('.').at(-1)));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    // Without the entity filter, the other entities' creations are there too.
    const everything = await changes('?limit=1000');
    expect([...new Set(everything.data.map((e) => e.entity))]).toEqual(expect.arrayContaining(['customers', 'plans']));
  });

  it('a re-read of unchanged records makes no event (a full pass, a webhook)', async () => {
    const cursor = (await changes('?after=latest')).meta.cursor;
    await fullPass();
    await announce(sim.data.customers[0]!.id);
    expect((await changes(`?after=${cursor}`)).data).toEqual([]);
  }, 60_000);

  it('an edit is one record.updated with the new record; a removal one record.deleted without it', async () => {
    const cursor = (await changes('?after=latest')).meta.cursor;
    const edited = sim.data.customers[1]!;
    edited.email = 'edited-for-the-feed@example.com';
    await announce(edited.id);
    const removed = sim.data.customers.splice(2, 1)[0]!;
    await announce(removed.id);
    // The same removal seen again (at least once delivery) and by the next full pass: nothing more.
    await announce(removed.id);
    const gone = sim.data.customers.splice(3, 1)[0]!;
    await fullPass();
    const { events } = await allAfter(cursor);
    expect(events.map((e) => [e.type, e.key, e.source])).toEqual([
      ['record.updated', edited.id, 'webhook'],
      ['record.deleted', removed.id, 'webhook'],
      ['record.deleted', gone.id, 'full_pass'],
    ]);
    expect(events[0]!.record?.email).toBe('edited-for-the-feed@example.com');
    expect(events[1]!.record).toBeUndefined();
  }, 60_000);

  it('after=latest gives only what comes next', async () => {
    const latest = await changes('?after=latest');
    expect(latest.data).toEqual([]);
    const edited = sim.data.customers[0]!;
    edited.name = 'Renamed for latest';
    await announce(edited.id);
    const next = await changes(`?after=${latest.meta.cursor}`);
    expect(next.data.map((e) => [e.type, e.key])).toEqual([['record.updated', edited.id]]);
    expect((await changes(`?after=${next.meta.cursor}`)).data).toEqual([]);
  }, 60_000);

  it('bad parameters are 400s naming the field', async () => {
    for (const [query, path] of [
      ['?limit=0', '/limit'],
      ['?limit=1001', '/limit'],
      ['?after=yesterday', '/after'],
      ['?entity=nope', '/entity'],
      ['?colour=red', ''],
    ] as const) {
      const response = await platform.call('GET', changesPath(query));
      expect(response.status, query).toBe(400);
      const problem = (await response.json()) as { errors: { path: string }[] };
      expect(problem.errors.map((e) => e.path).join(' '), query).toContain(path);
    }
  });

  it('another organization’s connector is a 404', async () => {
    const { token } = await platform.anotherOrganization();
    const response = await fetch(`${platform.url}${changesPath('')}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { code: string }).code).toBe('connector_not_found');
  });

  it('the typed client iterates the same feed (changes()), resumes from an event cursor, and manages endpoints', async () => {
    const conduit = new Conduit({
      baseUrl: platform.url,
      clientId: platform.clientId,
      clientSecret: platform.clientSecret,
    });
    const orb = conduit.connector(id, 'Orb');
    const overHttp = (await allAfter(null)).events;
    const iterated = [];
    for await (const change of orb.changes({ entity: 'customers', limit: 5 })) iterated.push(change);
    expect(iterated.map((e) => e.id)).toEqual(overHttp.map((e) => e.id));
    const resumed = [];
    for await (const change of orb.changes({ entity: 'customers', after: iterated[2]!.cursor }))
      resumed.push(change.id);
    expect(resumed).toEqual(overHttp.slice(3).map((e) => e.id));
    // Following: a change made while the iterator waits arrives through it. It follows from the head as it is
    // before the edit: `after: 'latest'` would be read at the iterator's first poll, which on a busy machine may
    // come after the edit's event, and the iterator would then wait for good.
    const head = (await changes('?after=latest')).meta.cursor;
    const abort = new AbortController();
    const followed = (async () => {
      for await (const change of orb.changes({ after: head, follow: true, signal: abort.signal })) {
        abort.abort();
        return change;
      }
    })();
    const edited = sim.data.customers[4]!;
    edited.email = 'followed@example.com';
    await announce(edited.id);
    expect(await followed).toMatchObject({ type: 'record.updated', key: edited.id });
    const endpoint = await conduit.webhookEndpoints.create({
      url: 'https://hooks.example.com/x',
      entities: ['customers'],
    });
    expect(endpoint.secret.startsWith('whsec_')).toBe(true);
    expect((await conduit.webhookEndpoints.list()).map((e) => e.id)).toContain(endpoint.id);
    expect((await conduit.webhookEndpoints.update(endpoint.id, { enabled: false })).enabled).toBe(false);
    expect(await conduit.webhookEndpoints.deliveries(endpoint.id)).toEqual([]);
    await conduit.webhookEndpoints.delete(endpoint.id);
    expect(await conduit.webhookEndpoints.list()).toEqual([]);
  }, 60_000);

  it('streams the feed as Server-Sent Events: each event with its cursor as id, resumed with Last-Event-ID', async () => {
    const everything = (await allAfter(null)).events;
    const token = await platform.token();
    const open = (headers: Record<string, string> = {}, query = '') =>
      fetch(`${platform.url}${changesPath(`/stream${query}`)}`, {
        headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...headers },
      });
    /** The first `n` events of a stream, as their ids and data. */
    const first = async (response: Response, n: number) => {
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = '';
      const frames: { id: string; data: { id: string } }[] = [];
      while (frames.length < n) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
        for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const id = /^id: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (id && data && block.includes('event: change')) frames.push({ id, data: JSON.parse(data) });
        }
      }
      await reader.cancel();
      return frames.slice(0, n);
    };
    const fromStart = await first(await open(), 3);
    expect(fromStart.map((f) => f.data.id)).toEqual(everything.slice(0, 3).map((e) => e.id));
    expect(fromStart.map((f) => f.id)).toEqual(
      everything.slice(0, 3).map((e) => e.id.slice(e.id.lastIndexOf('.') + 1)),
    );
    // A reconnecting EventSource sends the last id it saw: the stream goes on right after it.
    const resumed = await first(await open({ 'last-event-id': fromStart[1]!.id }), 2);
    expect(resumed.map((f) => f.data.id)).toEqual(everything.slice(2, 4).map((e) => e.id));
    // Live: a change made while the stream is open arrives on it.
    const live = open({}, '?after=latest');
    const response = await live;
    const next = first(response, 1);
    const edited = sim.data.customers[5]!;
    edited.email = 'streamed@example.com';
    await announce(edited.id);
    expect((await next)[0]!.data).toMatchObject({ type: 'record.updated', key: edited.id });
    const bad = await open({ 'last-event-id': 'nope' });
    expect(bad.status).toBe(400);
  }, 60_000);

  it('a cursor older than the retention answers 410 cursor_expired; without one, the oldest retained', async () => {
    const oldCursor = '1';
    const latest = await changes('?after=latest');
    // Retention as it runs in the worker, with every event so far past it.
    const purged = await purgeExpired(platform.worker!.deps, Date.now() + 30 * 86_400_000 + 1000);
    expect(purged.events).toBeGreaterThan(0);
    expect(purged.tombstones).toBeGreaterThan(0);
    const response = await platform.call('GET', changesPath(`?after=${oldCursor}`));
    expect(response.status).toBe(410);
    expect(((await response.json()) as { code: string }).code).toBe('cursor_expired');
    const fromOldest = await changes('');
    expect(fromOldest.data).toEqual([]);
    expect(fromOldest.meta.cursor).toBe(latest.meta.cursor);
    // The cursor at the head is still good.
    expect((await changes(`?after=${latest.meta.cursor}`)).data).toEqual([]);
    // A replay to a webhook endpoint from before the retention is refused the same way.
    const endpoint = (await (
      await platform.call('POST', '/api/v1/webhook-endpoints', {
        url: 'https://hooks.example.com/x',
        connector_ids: [id],
      })
    ).json()) as { id: string };
    const replay = await platform.call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/replay`, { after: oldCursor });
    expect(replay.status).toBe(410);
    expect(((await replay.json()) as { code: string }).code).toBe('cursor_expired');
    const fromHead = await platform.call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/replay`, {
      after: latest.meta.cursor,
    });
    expect(fromHead.status).toBe(202);
  });
});
