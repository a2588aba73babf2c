import type { EntityCatalog } from '@conduit/connectors';
import type { ConnectorRow } from '@conduit/db';
import type { IndexStore, SearchAnswer } from '@conduit/platform';
import { emptySearchPage, planSearch, readSearchPage, type SearchPage, searchProblemOf } from '@conduit/search-dsl';
import { ApiError } from '../problem.ts';

export type SearchResult = SearchPage;

export interface SearchService {
  search(row: ConnectorRow, entity: EntityCatalog, params: unknown): Promise<SearchResult>;
}

/**
 * `search` over the synchronized copy: the query is compiled by search-dsl (validation errors are 400s with
 * paths), always filtered and routed by connector id. Never calls the upstream.
 */
export function createSearchService(indexStore: IndexStore, cursorKey: Uint8Array | string): SearchService {
  return {
    async search(row, entity, params) {
      const plan = planSearch(params, {
        searchable: entity.searchable ?? {},
        recordKey: entity.recordKey,
        connectorId: row.id,
        entity: `${row.connector_type}/${entity.name}`,
        cursorKey,
      });
      let response: SearchAnswer;
      try {
        response = await indexStore.search(indexStore.alias(row.connector_type, entity.name), row.id, plan.body);
      } catch (error) {
        // Some engine errors are the query's (too many histogram buckets): a 400 at the aggregation.
        const body =
          (error as { body?: unknown; meta?: { body?: unknown } }).body ??
          (error as { meta?: { body?: unknown } }).meta?.body;
        throw (
          searchProblemOf(body, plan.page) ??
          new ApiError(503, 'search_unavailable', `the search index cannot answer: ${describe(error)}`)
        );
      }
      // No index yet: the first sync has not written anything, so there is nothing to find so far.
      if (response.statusCode === 404) return emptySearchPage(plan.page);
      return readSearchPage(withHits(response.body), plan.page);
    },
  };
}

/** The engine leaves `hits` out of a filtered answer when nothing matched. */
function withHits(body: unknown): unknown {
  const answer = body as { hits?: { hits?: unknown[] } };
  if (answer.hits?.hits) return answer;
  return { ...answer, hits: { ...answer.hits, hits: [] } };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message.slice(0, 200) : 'unknown error';
}
