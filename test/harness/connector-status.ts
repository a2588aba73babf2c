import { eventually, type TestPlatform } from './platform.ts';

export interface EntityStatus {
  status: string;
  running: boolean;
  last_success_at: string | null;
  record_count: number;
  error: string | null;
}

export async function entityStatuses(
  platform: TestPlatform,
  connectorId: string,
): Promise<Record<string, EntityStatus>> {
  const response = await platform.call('GET', `/api/v1/integrations/connectors/${connectorId}`);
  return ((await response.json()) as { entities: Record<string, EntityStatus> }).entities;
}

/** Waits until `predicate` holds for the entity's status, and returns it. */
export function waitForEntity(
  platform: TestPlatform,
  connectorId: string,
  entity: string,
  predicate: (status: EntityStatus) => boolean,
  timeoutMs = 90_000,
): Promise<EntityStatus> {
  return eventually(async () => {
    const status = (await entityStatuses(platform, connectorId))[entity];
    return status && predicate(status) ? status : undefined;
  }, timeoutMs);
}

/** Waits until each entity's first sync is done and none of them is running. */
export async function waitForIdleEntities(
  platform: TestPlatform,
  connectorId: string,
  entities: readonly string[],
): Promise<void> {
  for (const entity of entities) {
    await waitForEntity(platform, connectorId, entity, (s) => s.status === 'ready' && !s.running);
  }
}

/** Every record key the index holds for an entity of a connector, paging with search cursors. */
export async function searchAllIds(
  platform: TestPlatform,
  connectorId: string,
  entity: string,
  keyField = 'id',
): Promise<string[]> {
  return (await searchAllRows(platform, connectorId, entity, [keyField])).map((r) => String(r[keyField]));
}

/**
 * Every record the index holds for an entity of a connector, paging with search cursors: whole (a record key, e.g.
 * Google Ads' _row_key, need not be searchable), or only `fields`.
 */
export async function searchAllRows(
  platform: TestPlatform,
  connectorId: string,
  entity: string,
  fields?: string[],
): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const response = await platform.call('POST', `/api/v1/integrations/connectors/${connectorId}/execute`, {
      entity,
      action: 'search',
      params: { query: {}, limit: 10000, ...(fields ? { fields } : {}), ...(cursor ? { cursor } : {}) },
    });
    if (response.status !== 200) throw new Error(`search failed: ${response.status} ${await response.text()}`);
    const body = (await response.json()) as {
      data: Record<string, unknown>[];
      meta: { has_more: boolean; cursor: string | null };
    };
    rows.push(...body.data);
    cursor = body.meta.has_more ? body.meta.cursor : null;
  } while (cursor);
  return rows;
}
