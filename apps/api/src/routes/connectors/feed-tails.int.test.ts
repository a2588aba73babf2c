import { randomUUID } from 'node:crypto';
import { readEnv } from '@conduit/config';
import {
  ChangeFeedRepository,
  ClientsRepository,
  ConnectorsRepository,
  createDatabase,
  ensureDatabaseExists,
  migrateToLatest,
} from '@conduit/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropDatabase, withDatabaseName } from '../../../../../test/harness/databases.ts';
import { FeedTails } from './feed-tails.ts';

const env = readEnv();
const databaseUrl = withDatabaseName(
  env.DATABASE_URL,
  `conduit_tails_${randomUUID().replaceAll('-', '').slice(0, 12)}`,
);
const db = createDatabase(databaseUrl, 2);
const feed = new ChangeFeedRepository(db);
let connectorId: string;

beforeAll(async () => {
  await ensureDatabaseExists(databaseUrl);
  await migrateToLatest(db);
  await new ClientsRepository(db).upsertOrganization('org-a', 'A');
  ({ id: connectorId } = await new ConnectorsRepository(db).insert({
    id: randomUUID(),
    organization_id: 'org-a',
    connector_type: 'Orb',
    customer_name: 'tails',
    name: 'Orb',
    credentials_ciphertext: 'ciphertext',
    config: JSON.stringify({}),
    replication_config: JSON.stringify({ start_date: '2024-01-01T00:00:00Z' }),
  }));
});

afterAll(async () => {
  await db.destroy();
  await dropDatabase(databaseUrl);
});

let version = 1;
/** Appends one change of `key` to the feed (a new content each time). */
const change = (entity: string, key: string) =>
  feed.append(connectorId, entity, 'webhook', [
    { key, version: version++, contentHash: `h${version}`, recordJson: JSON.stringify({ id: key, version }) },
  ]);

/** The feed, counting the reads that reach Postgres. */
function countingFeed() {
  const reads = { head: 0, read: 0 };
  return {
    reads,
    feed: {
      head: (id: string) => {
        reads.head++;
        return feed.head(id);
      },
      read: (id: string, options: Parameters<ChangeFeedRepository['read']>[1]) => {
        reads.read++;
        return feed.read(id, options);
      },
    },
  };
}

/** A stream's loop: follows the tail from `after`, reading the feed itself while behind, until `until` events. */
async function follow(tails: FeedTails, after: number, until: number, entity?: string) {
  const seen: number[] = [];
  const signal = AbortSignal.timeout(10_000);
  while (seen.length < until && !signal.aborted) {
    const batch = await tails.next(connectorId, after, entity, 1000, signal);
    if (batch) {
      seen.push(...batch.events.map((e) => e.seq));
      after = batch.through;
    } else {
      const { lastSeq } = await feed.head(connectorId);
      const events = await feed.read(connectorId, { after, limit: 200, entity });
      seen.push(...events.map((e) => e.seq));
      after = events.length < 200 ? Math.max(lastSeq, events.at(-1)?.seq ?? 0) : events.at(-1)!.seq;
    }
  }
  return seen;
}

describe('FeedTails: the change streams of a connector read the feed once', () => {
  it('gives twenty streams every event in order from one read of each, however they interleave', async () => {
    const { lastSeq: start } = await feed.head(connectorId);
    const counted = countingFeed();
    const formatted: number[] = [];
    const tails = new FeedTails({
      feed: counted.feed,
      format: (_id, event) => {
        formatted.push(event.seq);
        return `event ${event.seq}\n`;
      },
      pollMs: 50,
    });
    // The tail starts at the head as it is now (a stream's first question starts it).
    await tails.next(connectorId, start, undefined, 0, AbortSignal.timeout(1000));
    const streams = Array.from({ length: 20 }, () => follow(tails, start, 30));
    for (let i = 0; i < 30; i++) {
      await change('invoices', `inv-${i % 7}`);
      if (i % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 60));
    }
    const expected = Array.from({ length: 30 }, (_, i) => start + i + 1);
    for (const seen of await Promise.all(streams)) expect(seen).toEqual(expected);
    // Each event was read and formatted once for all twenty, and one head read a poll served them all.
    expect(formatted).toEqual(expected);
    expect(counted.reads.read).toBeLessThanOrEqual(30);
    expect(counted.reads.head).toBeLessThan(100);
  });

  it('sends a stream of one entity only its events, and one resumed from before the tail what it missed', async () => {
    const { lastSeq: start } = await feed.head(connectorId);
    const tails = new FeedTails({ feed, format: (_id, event) => String(event.seq), pollMs: 50 });
    const customers = follow(tails, start, 5, 'customers');
    const everything = follow(tails, start, 10);
    for (let i = 0; i < 10; i++) await change(i % 2 === 0 ? 'customers' : 'invoices', `key-${i}`);
    const all = Array.from({ length: 10 }, (_, i) => start + i + 1);
    expect(await everything).toEqual(all);
    expect(await customers).toEqual(all.filter((_, i) => i % 2 === 0));
    // Started before the tail's first event: read from the feed, then from the tail, with nothing twice.
    const resumed = follow(tails, start - 3, 14);
    await change('invoices', 'late');
    expect(await resumed).toEqual([start - 2, start - 1, start, ...all, start + 11]);
  });

  it('ends the waiting streams with the error when the feed cannot be read, and starts again after', async () => {
    let failing = false;
    const tails = new FeedTails({
      feed: {
        head: (id) => (failing ? Promise.reject(new Error('feed down')) : feed.head(id)),
        read: (id, options) => feed.read(id, options),
      },
      format: (_id, event) => String(event.seq),
      pollMs: 20,
    });
    const { lastSeq } = await feed.head(connectorId);
    const waiting = tails.next(connectorId, lastSeq, undefined, 5000, AbortSignal.timeout(5000));
    failing = true;
    await expect(waiting).rejects.toThrow('feed down');
    failing = false;
    const next = tails.next(connectorId, lastSeq, undefined, 5000, AbortSignal.timeout(5000));
    await change('invoices', 'after-outage');
    expect((await next)?.events.map((e) => e.seq)).toEqual([lastSeq + 1]);
  });
});
