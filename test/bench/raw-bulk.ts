/**
 * The raw side of bench:sync and bench:changes: the fastest bulk indexing of the same documents this machine's
 * OpenSearch takes, found by trying a small grid of bulk request sizes and concurrencies (the client's bulk
 * helper, https://opensearch.org/docs/latest/clients/javascript/helpers/) into a fresh index of the product's
 * mapping and settings. Each trial is timed from its first document to the refresh that makes the last one
 * searchable (wall time, document building and serialization included: the worker pays those too).
 *
 * Up to GRID_SAMPLE documents decide the winner; with more, the winner then indexes all of them and that run is
 * the raw rate. Every index created is deleted.
 */

import { loadavg } from 'node:os';
import type { EntityCatalog } from '@conduit/connectors';
import { CopyWriter, IndexLifecycle, searchDocument } from '@conduit/search-store';
import type { Client } from '@opensearch-project/opensearch';
import { benchProcessGroups, cpuByGroup, cpuSnapshot } from './process-cpu.ts';

export interface RawSetting {
  /** Bytes of a bulk request body before the helper sends it. */
  readonly flushBytes: number;
  /** Bulk requests in flight at once. */
  readonly concurrency: number;
}

export interface RawTrial extends RawSetting {
  readonly documents: number;
  readonly seconds: number;
  readonly rate: number;
  /** Busy CPU seconds of the whole machine (engine, this process, anything else) over the trial. */
  readonly machineCpuSeconds: number;
  /** The same, per process group (process-cpu.ts: this process, the engine, the database...). */
  readonly cpuByProcess: ReadonlyMap<string, number>;
}

export interface RawResult {
  /** The winning setting, run on every document. */
  readonly best: RawTrial;
  readonly trials: readonly RawTrial[];
  readonly load: string;
}

const MB = 1_000_000;
export const RAW_GRID: readonly RawSetting[] = [
  { flushBytes: MB, concurrency: 1 },
  { flushBytes: 5 * MB, concurrency: 1 },
  { flushBytes: MB, concurrency: 2 },
  { flushBytes: 5 * MB, concurrency: 2 },
  { flushBytes: MB / 4, concurrency: 4 },
  { flushBytes: MB, concurrency: 4 },
];
const GRID_SAMPLE = 200_000;

export async function fastestRawBulk(
  client: Client,
  namespace: string,
  entity: EntityCatalog,
  connectorId: string,
  records: readonly Record<string, unknown>[],
): Promise<RawResult> {
  const sample = records.slice(0, GRID_SAMPLE);
  const trials: RawTrial[] = [];
  for (const [i, setting] of RAW_GRID.entries()) {
    const trial = await rawTrial(client, `${namespace}_raw${i}`, entity, connectorId, sample, setting);
    console.log(
      `  raw trial: ${trial.documents} documents, flushBytes ${setting.flushBytes}, concurrency ${setting.concurrency}: ` +
        `${trial.seconds.toFixed(1)} s, ${Math.round(trial.rate)} docs/s (load ${loadavg()[0]!.toFixed(2)})`,
    );
    trials.push(trial);
  }
  const winner = trials.reduce((a, b) => (b.rate > a.rate ? b : a));
  const best =
    sample.length === records.length
      ? winner
      : await rawTrial(client, `${namespace}_rawall`, entity, connectorId, records, winner);
  return {
    best,
    trials,
    load: loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
  };
}

async function rawTrial(
  client: Client,
  namespace: string,
  entity: EntityCatalog,
  connectorId: string,
  records: readonly Record<string, unknown>[],
  setting: RawSetting,
): Promise<RawTrial> {
  const indexes = new IndexLifecycle(client, namespace, { replicas: 0 });
  const store = new CopyWriter(client, indexes, { bulk: setting });
  const alias = await indexes.ensureIndex('Orb', entity);
  try {
    const started = performance.now();
    const cpuBefore = cpuSnapshot();
    const failed: unknown[] = [];
    await client.helpers.bulk({
      datasource: documents(entity, connectorId, records),
      onDocument: (document) => [{ index: { _index: alias, _id: document.id, routing: connectorId } }, document.doc],
      flushBytes: setting.flushBytes,
      concurrency: setting.concurrency,
      onDrop: (item) => failed.push(item.error),
    });
    await client.indices.refresh({ index: alias });
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = cpuSnapshot();
    const machineCpuSeconds = cpuAfter.machineSeconds - cpuBefore.machineSeconds;
    const cpuByProcess = cpuByGroup(cpuBefore, cpuAfter, benchProcessGroups({}));
    if (failed.length > 0) throw new Error(`raw bulk indexing dropped ${failed.length}: ${JSON.stringify(failed[0])}`);
    const count = await store.count('Orb', entity.name, connectorId);
    if (count !== records.length) throw new Error(`raw index holds ${count} of ${records.length} documents`);
    return {
      ...setting,
      documents: records.length,
      seconds,
      rate: records.length / seconds,
      machineCpuSeconds,
      cpuByProcess,
    };
  } finally {
    await client.indices.delete({ index: `${alias}__*` }, { ignore: [404] });
  }
}

/** Built as the helper asks for them (an async generator is what it takes lazily). */
async function* documents(
  entity: EntityCatalog,
  connectorId: string,
  records: readonly Record<string, unknown>[],
): AsyncGenerator<{ id: string; doc: Record<string, unknown> }> {
  for (const record of records) {
    const document = searchDocument(entity, connectorId, 'bench-raw', record);
    if (document) yield document;
  }
}
