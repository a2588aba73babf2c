import type { ChangeFeedRepository, WrittenChanges } from '@conduit/db';
import type { CopyWriter } from '@conduit/search-store';
import { runEntitySync, type SyncDeps } from '@conduit/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnector } from '../harness/create-connector.ts';
import { orbSettingsFrom } from '../harness/orb-connector.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { type OrbSimulator, startOrbSimulator } from '../simulators/orb/simulator.ts';

/**
 * A sync run appends each write group's events to the change feed while it bulk-indexes the next group
 * (packages/sync/src/sync-run.ts). The feed keeps the order the copy applied the writes, a checkpoint is never saved
 * before its group's events are in the feed, and a crash between a bulk and its feed append loses nothing: the
 * resumed run reads the group again. Each holds with one write group's bulk in flight (the default) and with several
 * (SyncRunControl.writeGroupsInFlight). Runs are driven here directly (no worker), with the real engine and Postgres.
 */

const START = '2020-01-01T00:00:00Z';
/** More than two write groups (at most 1,000 records each). */
const CUSTOMERS = 2500;

describe('a sync run overlaps its change-feed appends with the next bulk, in order, losing nothing', () => {
  let sim: OrbSimulator;
  let platform: TestPlatform;
  /** The customers in the order the upstream serves them (newest first): the order a first pass writes them. */
  let readOrder: string[];

  beforeAll(async () => {
    sim = await startOrbSimulator({ customers: CUSTOMERS, subscriptionsPerCustomer: 0 });
    platform = await startTestPlatform({ overrides: { baseUrls: { ORB: sim.url }, tokenUrls: {} }, worker: false });
    readOrder = [...sim.data.customers]
      .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id))
      .map((c) => c.id);
  }, 120_000);
  afterAll(async () => {
    await platform?.close();
    await sim?.close();
  });

  const newConnector = (name: string) =>
    createConnector(platform, { customer_name: 'acme', name, ...orbSettingsFrom(sim.apiKey, START) });

  /** The connector's customer events, oldest first. */
  const feedOf = async (connectorId: string) => {
    const events = [];
    let after = 0;
    for (;;) {
      const page = await platform.api.deps.changeFeed.read(connectorId, { after, limit: 1000, entity: 'customers' });
      if (page.length === 0) return events;
      events.push(...page);
      after = page.at(-1)!.seq;
    }
  };

  /**
   * The platform's deps with the run's two write steps (the copy's write, the feed's append) wrapped; everything
   * else passes through.
   */
  const depsWith = (overrides: {
    writeRecords: CopyWriter['writeRecords'];
    appendWritten: ChangeFeedRepository['appendWritten'];
  }): SyncDeps => {
    const wrapped = <T extends object>(target: T, name: string, replacement: unknown): T =>
      new Proxy(target, {
        get(object, property) {
          if (property === name) return replacement;
          const value = Reflect.get(object, property, object);
          return typeof value === 'function' ? value.bind(object) : value;
        },
      });
    const { copy, changeFeed } = platform.api.deps;
    return {
      ...platform.api.deps,
      copy: wrapped(copy, 'writeRecords', overrides.writeRecords),
      changeFeed: wrapped(changeFeed, 'appendWritten', overrides.appendWritten),
    };
  };

  it.each([1, 3])(
    'bulk-indexes the next group while an append is pending, and checkpoints only what the feed holds (%i groups in flight)',
    async (depth) => {
      const id = await newConnector(`overlap-${depth}`);
      const steps: string[] = [];
      let releaseFirstAppend!: () => void;
      const firstAppendHeld = new Promise<void>((resolve) => {
        releaseFirstAppend = resolve;
      });
      let appends = 0;
      const store = platform.api.deps.copy;
      const feed = platform.api.deps.changeFeed;
      const deps = depsWith({
        writeRecords: async (...args: Parameters<CopyWriter['writeRecords']>) => {
          const written = await store.writeRecords(...args);
          steps.push('bulk');
          return written;
        },
        appendWritten: async (written: WrittenChanges) => {
          if (appends++ === 0) await firstAppendHeld;
          const appended = await feed.appendWritten(written);
          steps.push('append');
          return appended;
        },
      });
      const checkpoints: { indexed: number; feedHead: number }[] = [];
      const syncStates = platform.api.deps.syncStates;
      const watched = {
        ...deps,
        syncStates: new Proxy(syncStates, {
          get(target, property) {
            if (property === 'saveCheckpoint') {
              return async (...[run, checkpoint, delta]: Parameters<typeof target.saveCheckpoint>) => {
                checkpoints.push({
                  indexed: (checkpoint as { indexed: number }).indexed,
                  feedHead: (await platform.api.deps.changeFeed.head(id)).lastSeq,
                });
                return target.saveCheckpoint(run, checkpoint, delta);
              };
            }
            const value = Reflect.get(target, property, target);
            return typeof value === 'function' ? value.bind(target) : value;
          },
        }),
      };
      const running = runEntitySync(id, 'customers', watched, {
        owner: 'overlap',
        stopRequested: () => false,
        writeGroupsInFlight: depth,
      });
      // The second group reaches the engine while the first group's events are still on their way to the feed.
      await eventually(async () => (steps.filter((s) => s === 'bulk').length >= 2 ? true : undefined), 30_000, 20);
      expect(steps).not.toContain('append');
      expect(checkpoints).toEqual([]);
      releaseFirstAppend();
      expect(await running).toEqual({ status: 'done', indexed: CUSTOMERS });

      // Every checkpoint came after its events were in the feed (a first pass: one event per record written).
      expect(checkpoints.length).toBeGreaterThanOrEqual(3);
      for (const { indexed, feedHead } of checkpoints) expect(feedHead).toBeGreaterThanOrEqual(indexed);
      const events = await feedOf(id);
      expect(events.map((e) => e.key)).toEqual(readOrder);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect(new Set(events.map((e) => e.type))).toEqual(new Set(['record.created']));
    },
  );

  it.each([1, 3])(
    'a crash between a bulk and its feed append loses no event: the resumed run writes the group again (%i groups in flight)',
    async (depth) => {
      const id = await newConnector(`crash-${depth}`);
      const store = platform.api.deps.copy;
      const feed = platform.api.deps.changeFeed;
      let appends = 0;
      let bulksAfterCrash = 0;
      let crashed = false;
      const deps = depsWith({
        writeRecords: async (...args: Parameters<CopyWriter['writeRecords']>) => {
          const written = await store.writeRecords(...args);
          if (crashed) bulksAfterCrash++;
          return written;
        },
        // The second group's append dies (as the process would) after its bulk was acknowledged.
        appendWritten: async (written: WrittenChanges) => {
          if (++appends === 2) {
            crashed = true;
            throw new Error('the worker died before the feed append');
          }
          return feed.appendWritten(written);
        },
      });
      await expect(
        runEntitySync(id, 'customers', deps, {
          owner: `crash-${depth}-1`,
          stopRequested: () => false,
          writeGroupsInFlight: depth,
        }),
      ).rejects.toThrow('the worker died before the feed append');
      // The copy holds more than the feed does, and the checkpoint is the first group's: where the next run resumes.
      await platform.api.deps.indexes.refresh('Orb', 'customers');
      const feedBefore = await feedOf(id);
      const state = await platform.api.deps.syncStates.get(id, 'customers');
      const checkpoint = state?.checkpoint as { indexed: number };
      expect(checkpoint.indexed).toBe(feedBefore.length);
      expect(await store.count('Orb', 'customers', id)).toBeGreaterThan(feedBefore.length);
      // At most the groups whose bulks were in flight when it died (writeGroupsInFlight).
      expect(bulksAfterCrash).toBeLessThanOrEqual(depth);

      const resumed = await runEntitySync(id, 'customers', platform.api.deps, {
        owner: `crash-${depth}-2`,
        stopRequested: () => false,
      });
      expect(resumed.status).toBe('done');
      const events = await feedOf(id);
      // One record.created per customer, none lost and none twice, in the order the copy applied them.
      expect(events.map((e) => e.key)).toEqual(readOrder);
      expect(new Set(events.map((e) => e.type))).toEqual(new Set(['record.created']));
      expect(await store.count('Orb', 'customers', id)).toBe(CUSTOMERS);
    },
  );
});
