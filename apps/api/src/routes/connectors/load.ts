import type { KindCatalog } from '@conduit/connectors';
import type { ConnectorRow, ConnectorsRepository } from '@conduit/db';
import type { ResolvedKind } from '@conduit/hosted-connectors';
import type { Context } from 'hono';
import type { ApiDeps, ApiEnv } from '../../deps.ts';
import { ApiError } from '../../problem.ts';

/**
 * The caller's connector, or a 404: another organization's connector does not exist for the caller. `source`
 * is the repository (fresh) or the connector cache (search: a row at most one invalidation old).
 */
export async function loadConnector(
  c: Context<ApiEnv>,
  deps: Pick<ApiDeps, 'connectors' | 'hosted'>,
  source: Pick<ConnectorsRepository, 'find'> = deps.connectors,
): Promise<{ row: ConnectorRow; catalog: KindCatalog; kind: ResolvedKind }> {
  const id = c.req.param('connector_id') ?? c.req.param('id') ?? '';
  const row = /^[A-Za-z0-9-]{1,64}$/.test(id) ? await source.find(c.get('auth').organizationId, id) : undefined;
  const kind = row && (await deps.hosted.kinds.forRow(row));
  if (!row || !kind) throw new ApiError(404, 'connector_not_found', `no connector ${id}`);
  return { row, catalog: kind.definition.catalog, kind };
}
