import { type EntityCatalog, findConnectorDefinition } from '@conduit/connectors';
import type { ConnectorRow } from '@conduit/db';
import { describe, expect, it } from 'vitest';
import { GroupedIndexWrites } from './grouped-index-writes.ts';

const customers = findConnectorDefinition('Orb')!.catalog.entities.customers as EntityCatalog;
const rowOf = (id: string) => ({ id, connector_type: 'Orb' }) as ConnectorRow;

/** The writes the grouping sends (what it asks of the index store), settled when the test says. */
function recordingStore(fail: (connectorId: string) => boolean = () => false) {
  const batches: { connectorId: string; runId: string; keys: unknown[]; readAt: unknown }[] = [];
  const lookups: string[] = [];
  return {
    batches,
    lookups,
    deps: {
      syncStates: {
        get: async (connectorId: string) => {
          lookups.push(connectorId);
          return connectorId === 'c-running' ? ({ run_id: 'run-7' } as never) : undefined;
        },
      },
      changeFeed: { appendWritten: async () => 0 },
      copy: {
        writeRecords: async (
          _type: string,
          _e: EntityCatalog,
          connectorId: string,
          runId: string,
          records: readonly Record<string, unknown>[],
          options: { readAt: number | readonly number[] },
        ) => {
          await new Promise((resolve) => setTimeout(resolve, 20));
          batches.push({ connectorId, runId, keys: records.map((r) => r.id), readAt: options.readAt });
          if (fail(connectorId)) throw new Error('bulk refused');
          const target = { connectorId, entity: 'customers', source: 'webhook' as const };
          return { indexed: records.length, skipped: 0, stale: 0, target, applied: [] };
        },
      },
    },
  };
}

describe('GroupedIndexWrites: the webhook worker writes events that arrive together in one bulk request', () => {
  it('writes concurrent records of one connector and entity in one bulk, resolving each once written', async () => {
    const store = recordingStore();
    const writes = new GroupedIndexWrites(store.deps);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => writes.write(rowOf('c-1'), customers, { id: `cus_${i}` }, 1000)),
    );
    expect(store.batches).toHaveLength(1);
    expect(store.batches[0]!.keys).toHaveLength(20);
    // Each record keeps its own re-read instant (its version in the copy).
    expect(store.batches[0]!.readAt).toEqual(Array.from({ length: 20 }, () => 1000));
    expect(store.lookups).toEqual(['c-1']);
  });

  it('sends records queued during a flush in the next one, stamped with the run id current at write time', async () => {
    const store = recordingStore();
    const writes = new GroupedIndexWrites(store.deps);
    const first = writes.write(rowOf('c-running'), customers, { id: 'cus_a' }, 1000);
    await new Promise((resolve) => setTimeout(resolve, 5)); // the first flush is in flight
    const later = [
      writes.write(rowOf('c-running'), customers, { id: 'cus_b' }, 1000),
      writes.write(rowOf('c-running'), customers, { id: 'cus_c' }, 1000),
    ];
    await Promise.all([first, ...later]);
    expect(store.batches.map((b) => b.keys)).toEqual([['cus_a'], ['cus_b', 'cus_c']]);
    expect(store.batches.every((b) => b.runId === 'run-7')).toBe(true);
  });

  it('a failed bulk rejects exactly the writes it carried (their jobs retry); other groups are written', async () => {
    const store = recordingStore((connectorId) => connectorId === 'c-bad');
    const writes = new GroupedIndexWrites(store.deps);
    const bad = [
      writes.write(rowOf('c-bad'), customers, { id: 'x1' }, 1000),
      writes.write(rowOf('c-bad'), customers, { id: 'x2' }, 1000),
    ];
    const good = writes.write(rowOf('c-good'), customers, { id: 'y1' }, 1000);
    const settled = await Promise.allSettled([...bad, good]);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    // The writer is usable after a failure.
    await writes.write(rowOf('c-good'), customers, { id: 'y2' }, 1000);
    expect(store.batches.map((b) => b.keys)).toContainEqual(['y2']);
  });
});
