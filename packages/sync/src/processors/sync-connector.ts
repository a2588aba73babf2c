import { SyncConnectorJob } from '@conduit/queues';
import type { SyncDeps } from '../deps.ts';

/** Fans a connector sync out into one deduplicated job per searchable entity. */
export async function processSyncConnector(data: unknown, deps: SyncDeps): Promise<{ entities: string[] }> {
  const { connectorId } = SyncConnectorJob.parse(data);
  const row = await deps.connectors.findForSync(connectorId);
  if (!row) {
    // Deleted since: make sure no schedule keeps firing for it.
    await deps.scheduler.unschedule(connectorId);
    return { entities: [] };
  }
  const catalog = (await deps.hosted.kinds.forRow(row))?.definition.catalog;
  const entities = Object.values(catalog?.entities ?? {})
    .filter((e) => e.searchable && e.sync)
    .map((e) => e.name);
  await deps.syncStates.ensure(connectorId, entities);
  for (const entity of entities) await deps.scheduler.syncEntity(connectorId, entity);
  return { entities };
}
