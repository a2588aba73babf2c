import type { EntityCatalog } from '@conduit/connectors';
import type { ConnectorRow, SyncStatesRepository } from '@conduit/db';
import { currentRunId, indexKindOf } from '@conduit/hosted-connectors';
import type { IndexStore } from '@conduit/search-store';

interface Waiter {
  readonly record: Record<string, unknown>;
  readonly readAt: number;
  resolve(): void;
  reject(error: unknown): void;
}

interface Group {
  readonly connectorType: string;
  readonly connectorId: string;
  readonly entity: EntityCatalog;
  readonly waiters: Waiter[];
}

export interface GroupedIndexWritesDeps {
  readonly indexStore: Pick<IndexStore, 'writeBatch'>;
  readonly syncStates: Pick<SyncStatesRepository, 'get'>;
}

/**
 * Group commit for the webhook worker's index writes. Under a stream of events, one bulk request and one run-id
 * lookup per event made the engine round trip (not the upstream re-read) the cost of each job, and the queue
 * fell behind. Here, records written while a flush is in flight wait for the next one, which writes each
 * (connector, entity) group in one bulk request. A caller's promise settles with its own group's write, so a job
 * completes only once its record is indexed, and a failed bulk fails (and retries) exactly the jobs it carried.
 * Not refreshed: the index's own refresh makes the writes searchable.
 */
export class GroupedIndexWrites {
  readonly #deps: GroupedIndexWritesDeps;
  #pending = new Map<string, Group>();
  #flushing = false;

  constructor(deps: GroupedIndexWritesDeps) {
    this.#deps = deps;
  }

  /** Resolves once the record is written (in a bulk request with the others queued meanwhile). */
  write(row: ConnectorRow, entity: EntityCatalog, record: Record<string, unknown>, readAt: number): Promise<void> {
    const groupKey = `${row.id}\0${entity.name}`;
    let group = this.#pending.get(groupKey);
    if (!group) {
      group = { connectorType: indexKindOf(row), connectorId: row.id, entity, waiters: [] };
      this.#pending.set(groupKey, group);
    }
    const waiters = group.waiters;
    const written = new Promise<void>((resolve, reject) => waiters.push({ record, readAt, resolve, reject }));
    if (!this.#flushing) {
      this.#flushing = true;
      // The next macrotask: writes from jobs finishing their re-reads in the same tick join this flush.
      setImmediate(() => void this.#flush());
    }
    return written;
  }

  async #flush(): Promise<void> {
    while (this.#pending.size > 0) {
      const groups = [...this.#pending.values()];
      this.#pending = new Map();
      await Promise.all(groups.map((group) => this.#writeGroup(group)));
    }
    this.#flushing = false;
  }

  async #writeGroup(group: Group): Promise<void> {
    try {
      // Looked up per flush, right before the write: the run id stamped is the one current at write time.
      const runId = await currentRunId(this.#deps.syncStates, group.connectorId, group.entity.name);
      await this.#deps.indexStore.writeBatch(
        group.connectorType,
        group.entity,
        group.connectorId,
        runId,
        group.waiters.map((w) => w.record),
        // Each record with its own re-read instant: an older re-read of a record in the group is dropped.
        { readAt: group.waiters.map((w) => w.readAt), source: 'webhook', refresh: false },
      );
      for (const waiter of group.waiters) waiter.resolve();
    } catch (error) {
      for (const waiter of group.waiters) waiter.reject(error);
    }
  }
}
