import type { EntityCatalog } from '@conduit/connectors';
import type { ConnectorRow } from '@conduit/db';
import type { IndexStore } from '@conduit/platform';
import { planSearch, readSearchPage, type SearchPage } from '@conduit/search-dsl';
import { ApiError } from '../problem.ts';

export type SearchResult = SearchPage;

export interface SearchService {
  search(row: ConnectorRow, entity: EntityCatalog, params: unknown): Promise<SearchResult>;
}

/**
 * `search` over the synchronized copy: the query is compiled by search-dsl (validation errors are 400s with
 * paths), always filtered and routed by connector id. Never calls the upstream.
 */
export function createSearchService(indexStore: IndexStore, cursorKey: string): SearchService {
  return {
    async search(row, entity, params) {
      const plan = planSearch(params, {
        searchable: entity.searchable ?? {},
        recordKey: entity.recordKey,
        connectorId: row.id,
        entity: `${row.connector_type}/${entity.name}`,
        cursorKey,
      });
      let response: { statusCode?: number | null; body: unknown };
      try {
        response = await indexStore.client.search(
          {
            index: indexStore.alias(row.connector_type, entity.name),
            routing: row.id,
            body: plan.body as unknown as Record<string, unknown>,
          },
          { ignore: [404] },
        );
      } catch (error) {
        throw new ApiError(503, 'search_unavailable', `the search index cannot answer: ${describe(error)}`);
      }
      // No index yet: the first sync has not written anything, so there is nothing to find so far.
      if (response.statusCode === 404) return { data: [], meta: { has_more: false, cursor: null, took_ms: null } };
      return readSearchPage(response.body, plan.page);
    },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message.slice(0, 200) : 'unknown error';
}
