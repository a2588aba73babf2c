import { EngineQueryError, SearchTimeoutError } from './search-errors.ts';
import {
  type LookupAnswer,
  type SearchAnswer,
  type SearchRequestOptions,
  SearchTransport,
  type SearchTransportOptions,
} from './search-transport.ts';

/**
 * Searches and lookups over the copy, through the search hot path's own connection (SearchTransport). Failures
 * are typed (search-errors.ts); answers are the engine's bytes, for the caller to read.
 *
 * @example
 * const search = new CopySearch(env.OPENSEARCH_URL, { requests: env.OPENSEARCH_SEARCH_REQUESTS });
 * const answer = await search.search(indexes.alias('Orb', 'invoices'), connectorId, body, { tenant });
 */
export class CopySearch {
  readonly #transport: SearchTransport;

  /** `nodeUrls`: one node, or several comma-separated nodes of one cluster (OPENSEARCH_URL). */
  constructor(nodeUrls: string, options: SearchTransportOptions) {
    this.#transport = new SearchTransport(nodeUrls, options);
  }

  /**
   * `_search` on an index or alias, routed. 404 (no index yet) comes back as a status; an answer the engine cut at
   * its timeout rejects with SearchTimeoutError, any other error status with EngineQueryError; the transport's own
   * SearchQueueFullError and SearchAbandonedError pass through.
   */
  async search(
    index: string,
    routing: string,
    body: unknown,
    options: SearchRequestOptions = {},
  ): Promise<SearchAnswer> {
    const answer = await this.#transport.search(index, routing, body, options);
    if (answer.statusCode === 200 && timedOut(answer.json)) throw new SearchTimeoutError();
    if (answer.statusCode >= 400 && answer.statusCode !== 404) {
      throw new EngineQueryError(answer.statusCode, parseError(answer.json));
    }
    return answer;
  }

  /**
   * `_mget` of document ids on an index or alias, routed: the answer as it came, whatever its status (search-dsl's
   * `lookupAnswerAsSearch` reads it, and says when a search must answer instead).
   */
  lookup(
    index: string,
    routing: string,
    ids: readonly string[],
    includes: readonly string[],
    tenant?: string,
  ): Promise<LookupAnswer> {
    return this.#transport.lookup(index, routing, ids, includes, tenant);
  }

  close(): Promise<void> {
    return this.#transport.close();
  }
}

/** Whether an engine answer says it stopped at its `timeout` (partial results); `timed_out` comes first after `took`. */
function timedOut(json: Buffer): boolean {
  return json.subarray(0, 64).includes('"timed_out":true');
}

/** An engine error answer, parsed (one that is not JSON, such as a proxy's page, as its text). */
function parseError(json: Buffer): unknown {
  const text = json.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return { error: { type: 'unreadable_answer', reason: text.slice(0, 200) } };
  }
}
