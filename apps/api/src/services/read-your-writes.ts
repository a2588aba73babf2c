import { type EntityCatalog, entityOf, type KindCatalog } from '@conduit/connectors';
import type { ConnectorRow, SyncStatesRepository } from '@conduit/db';
import { indexKindOf, type RefreshRecordDeps, refreshRecord } from '@conduit/hosted-connectors';
import type { Logger } from '@conduit/observability';
import { recordKeyOf } from '@conduit/search-store';
import { z } from 'zod';

const WRITES = new Set(['create', 'update', 'delete']);

/**
 * Read-your-writes: after a successful create, update or delete through execute on a replicated
 * entity, the record is re-read from the upstream (its get) and written to the copy, or removed when the upstream
 * no longer has it, before execute answers; search then reflects the write. The upstream stays the source: the
 * write's own answer only names the record.
 *
 * The record is named by the entity's get params: each required one comes from the write's params, and the one the
 * write does not carry (a create's new id) from the record key of the upstream's answer.
 * The write already happened upstream, so a failing re-read is logged, never turned into an error of the write;
 * the next sync brings the copy level.
 */
export async function reflectWrite(
  deps: RefreshRecordDeps & {
    readonly logger: Logger;
    readonly syncStates: Pick<SyncStatesRepository, 'get' | 'setRecordCount'>;
  },
  row: ConnectorRow,
  catalog: KindCatalog,
  write: {
    readonly entity: string;
    readonly action: string;
    readonly params: Record<string, unknown>;
    readonly result: unknown;
    readonly signal?: AbortSignal;
  },
): Promise<void> {
  if (!WRITES.has(write.action)) return;
  const written = entityOf(catalog, write.entity);
  const target = written?.writesTo ? entityOf(catalog, written.writesTo) : written;
  if (!target?.searchable || !target.sync || !target.actions.get) return;
  const named = recordNamed(target, write.params, write.result);
  if (!named) {
    deps.logger.warn('read-your-writes: the write does not name its record', { entity: target.name });
    return;
  }
  try {
    const outcome = await refreshRecord(deps, row, {
      entity: target.name,
      params: named.params,
      key: named.key,
      refresh: 'wait_for',
      source: 'execute',
      ...(write.signal ? { signal: write.signal } : {}),
    });
    // The entity's record_count follows the copy (a run in flight sets it itself when it ends).
    if (outcome.status !== 'skipped') {
      const count = await deps.indexStore.count(indexKindOf(row), target.name, row.id);
      await deps.syncStates.setRecordCount(row.id, target.name, count);
    }
  } catch (error) {
    deps.logger.warn('read-your-writes: re-reading the written record failed', {
      connector_id: row.id,
      entity: target.name,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

function recordNamed(
  target: EntityCatalog,
  params: Record<string, unknown>,
  result: unknown,
): { params: Record<string, unknown>; key: string } | null {
  const data = (result as { data?: unknown } | null)?.data;
  const record =
    data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : null;
  const recordKey = record ? recordKeyOf(target, record) : null;
  const shape = target.actions.get?.shape ?? {};
  const required = Object.keys(shape).filter((name) => {
    const param = shape[name];
    return param !== undefined && !z.safeParse(param, undefined).success;
  });
  const getParams: Record<string, unknown> = {};
  const missing = required.filter((name) => params[name] === undefined || params[name] === null);
  for (const name of required) if (!missing.includes(name)) getParams[name] = params[name];
  if (missing.length > 1 || (missing.length === 1 && recordKey === null)) return null;
  if (missing.length === 1) getParams[missing[0]!] = recordKey;
  const onlyId = required.length === 1 ? getParams[required[0]!] : undefined;
  const key = recordKey ?? (onlyId === undefined ? null : String(onlyId));
  return key === null ? null : { params: getParams, key };
}
