import { createHash } from 'node:crypto';
import type { EntityCatalog } from '@conduit/connectors';
import { buildIndexMapping, indexDocumentId, toIndexDocument } from '@conduit/search-dsl';
import type { Client } from '@opensearch-project/opensearch';
import { SYNC_RUN_FIELD, searchDocument } from './search-documents.ts';
import {
  type SearchAnswer,
  type SearchRequestOptions,
  SearchTransport,
  type SearchTransportOptions,
  timedOut,
} from './search-transport.ts';

const CONNECTOR_ID_FIELD = '_connector_id';
const DELETE_PAGE = 1000;
/** Pages are ~100 records, so each writeBatch is one bulk request; a huge page is split at 5 MB. */
const BULK_FLUSH_BYTES = 5_000_000;
/** Items refused with 429 are retried this many times, BULK_RETRY_WAIT_MS apart, before the page fails. */
const BULK_RETRIES = 5;
const BULK_RETRY_WAIT_MS = 500;

interface StoredDocument {
  _connector_id: string;
  _key: string;
  _record?: Record<string, unknown>;
  _sync_run?: string;
}

/** `wait_for`: the call returns once the write is visible to search (read-your-writes, webhooks). */
export type IndexRefresh = boolean | 'wait_for';

export interface IndexedBatch {
  readonly indexed: number;
  /** Records without a key cannot get a stable document id; they are counted, not indexed. */
  readonly skipped: number;
}

/**
 * The synchronized copy in OpenSearch: one index per connector kind and entity behind an alias, shared by all
 * connectors of that kind; documents routed by connector id. Index versions are named after a hash of the
 * generated mapping, so a changed mapping gets a new index and an alias swap.
 */
export class IndexStore {
  readonly #client: Client;
  readonly #namespace: string;
  readonly #ensured = new Map<string, Promise<string>>();
  readonly #transport: SearchTransport | undefined;
  readonly #replicas: number;

  /**
   * `options.searchUrl`: the node searches go to through their own pool, with at most `options.searchRequests`
   * search requests open at once, and as many lookups (see SearchTransport); without it the store only writes
   * (the worker, bulk tests).
   */
  constructor(
    client: Client,
    namespace: string,
    options: {
      searchUrl?: string;
      searchRequests?: number;
      transport?: SearchTransportOptions;
      /** Replicas of each index (0 when unset: a single node). */
      replicas?: number;
    } = {},
  ) {
    this.#client = client;
    this.#namespace = namespace;
    this.#replicas = options.replicas ?? 0;
    this.#transport = options.searchUrl
      ? new SearchTransport(options.searchUrl, { ...options.transport, requests: options.searchRequests })
      : undefined;
  }

  /**
   * `_search` on an index or alias, routed, through the search transport (`options.searchUrl`); 404 (no index
   * yet) comes back as a status, other engine errors reject, and so does an answer the engine cut at its timeout
   * (`timedOut` set on the error). A store built only to write cannot search.
   */
  async search(
    index: string,
    routing: string,
    body: unknown,
    options: SearchRequestOptions = {},
  ): Promise<SearchAnswer> {
    const answer = await this.#searchTransport().search(index, routing, body, options);
    if (answer.statusCode === 200 && timedOut(answer.json)) {
      throw Object.assign(new Error('the search ran over the engine time limit'), { timedOut: true });
    }
    if (answer.statusCode >= 400 && answer.statusCode !== 404) {
      const error = parseError(answer.json);
      const reason = (error as { error?: { type?: string; reason?: string } }).error;
      // The answer rides along: some errors are the query's to fix (search-dsl's searchProblemOf reads it).
      throw Object.assign(
        new Error(`search answered ${answer.statusCode}: ${reason?.type ?? ''} ${reason?.reason ?? ''}`.trim()),
        { body: error },
      );
    }
    return answer;
  }

  /**
   * `_mget` of document ids on an index or alias, routed, through the search transport: the answer as it came,
   * whatever its status (search-dsl's `lookupAnswerAsSearch` reads it, and says when a search must answer instead).
   */
  lookup(
    index: string,
    routing: string,
    ids: readonly string[],
    includes: readonly string[],
    tenant?: string,
  ): Promise<SearchAnswer> {
    return this.#searchTransport().lookup(index, routing, ids, includes, tenant);
  }

  #searchTransport(): SearchTransport {
    if (!this.#transport) throw new Error('this IndexStore was built without options.searchUrl, so it cannot search');
    return this.#transport;
  }

  async close(): Promise<void> {
    await this.#transport?.close();
  }

  get client(): Client {
    return this.#client;
  }

  alias(connectorType: string, entity: string): string {
    return `${this.#namespace}_${connectorType}_${entity}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  }

  /** Creates the current index version and points the alias at it (once per process and entity). */
  ensureIndex(connectorType: string, entity: EntityCatalog): Promise<string> {
    const alias = this.alias(connectorType, entity.name);
    let pending = this.#ensured.get(alias);
    if (!pending) {
      pending = this.#ensure(alias, entity).catch((error: unknown) => {
        this.#ensured.delete(alias);
        throw error;
      });
      this.#ensured.set(alias, pending);
    }
    return pending;
  }

  async #ensure(alias: string, entity: EntityCatalog): Promise<string> {
    if (!entity.searchable) throw new Error(`${entity.name} is not searchable`);
    const generated = buildIndexMapping(entity.searchable, entity.recordKey);
    const properties = (generated.mappings as { properties: Record<string, unknown> }).properties;
    const definition = {
      settings: { ...generated.settings, number_of_shards: 1, number_of_replicas: 0 },
      mappings: { ...generated.mappings, properties: { ...properties, [SYNC_RUN_FIELD]: { type: 'keyword' } } },
    };
    const version = createHash('sha256').update(JSON.stringify(definition)).digest('hex').slice(0, 10);
    const index = `${alias}__${version}`;
    const exists = await this.#client.indices.exists({ index });
    if (!exists.body) {
      try {
        // Replicas are a dynamic setting, so they stay out of the version: the count may change without a new index.
        const body = { ...definition, settings: { ...definition.settings, number_of_replicas: this.#replicas } };
        await this.#client.indices.create({ index, body: body as Record<string, unknown> });
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
      }
    } else {
      // An index made before OPENSEARCH_REPLICAS changed (e.g. a single node grown into a cluster) follows it.
      await this.#client.indices.putSettings({ index, body: { index: { number_of_replicas: this.#replicas } } });
    }
    const current = await this.#aliasTargets(alias);
    if (current.length !== 1 || current[0] !== index) {
      // A new mapping version: fill it from the old one before the alias moves, so search keeps answering
      // with complete results throughout (records re-derived from their stored originals).
      for (const old of current.filter((i) => i !== index)) await this.#copyDocuments(old, index, entity);
      // One atomic request: the alias never points at nothing, so search does not fail during the swap.
      await this.#client.indices.updateAliases({
        body: {
          actions: [
            ...current.filter((i) => i !== index).map((i) => ({ remove: { index: i, alias } })),
            { add: { index, alias, is_write_index: true } },
          ],
        },
      });
      for (const old of current.filter((i) => i !== index))
        await this.#client.indices.delete({ index: old }, { ignore: [404] });
    }
    return alias;
  }

  async #copyDocuments(from: string, to: string, entity: EntityCatalog): Promise<number> {
    let copied = 0;
    let after: (string | number)[] | undefined;
    for (;;) {
      const response = await this.#client.search({
        index: from,
        body: {
          size: DELETE_PAGE,
          query: { match_all: {} },
          sort: [{ [CONNECTOR_ID_FIELD]: 'asc' }, { _key: 'asc' }],
          ...(after ? { search_after: after } : {}),
        },
      });
      const hits = (
        response.body as { hits: { hits: { _id: string; _source: StoredDocument; sort: (string | number)[] }[] } }
      ).hits.hits;
      if (hits.length === 0) break;
      const body: Record<string, unknown>[] = [];
      for (const hit of hits) {
        const source = hit._source;
        const rederived = toIndexDocument(
          { ...(source._record ?? {}), [entity.recordKey]: source._key },
          { searchable: entity.searchable ?? {}, recordKey: entity.recordKey, connectorId: source._connector_id },
        );
        body.push({ index: { _index: to, _id: hit._id, routing: source._connector_id } });
        body.push({ ...rederived, [SYNC_RUN_FIELD]: source[SYNC_RUN_FIELD] });
      }
      await this.#client.bulk({ body, refresh: false });
      copied += hits.length;
      after = hits.at(-1)!.sort;
    }
    await this.#client.indices.refresh({ index: to });
    return copied;
  }

  async #aliasTargets(alias: string): Promise<string[]> {
    const response = await this.#client.indices.getAlias({ name: alias }, { ignore: [404] });
    if (response.statusCode === 404) return [];
    return Object.keys(response.body as Record<string, unknown>);
  }

  /** Idempotent bulk write: the same record always lands on the same document id. */
  async writeBatch(
    connectorType: string,
    entity: EntityCatalog,
    connectorId: string,
    runId: string,
    records: readonly Record<string, unknown>[],
    options: { refresh?: IndexRefresh } = {},
  ): Promise<IndexedBatch> {
    const alias = await this.ensureIndex(connectorType, entity);
    const documents: { id: string; doc: Record<string, unknown> }[] = [];
    let skipped = 0;
    for (const record of records) {
      const document = searchDocument(entity, connectorId, runId, record);
      if (document === null) skipped++;
      else documents.push(document);
    }
    if (documents.length === 0) return { indexed: 0, skipped };
    // The client's bulk helper: one request per page (a page is far below flushBytes), and the items the engine
    // refuses with 429 (write queue full) are sent again after a pause instead of failing the page.
    const dropped: { status: number; error: unknown }[] = [];
    const stats = await this.#client.helpers.bulk({
      datasource: documents,
      onDocument: (document) => [{ index: { _index: alias, _id: document.id, routing: connectorId } }, document.doc],
      flushBytes: BULK_FLUSH_BYTES,
      concurrency: 1,
      retries: BULK_RETRIES,
      wait: BULK_RETRY_WAIT_MS,
      onDrop: (item) => dropped.push({ status: item.status, error: item.error }),
      ...(options.refresh ? { refresh: options.refresh } : {}),
    });
    if (dropped.length > 0) {
      throw new Error(
        `bulk indexing failed for ${dropped.length} documents: ${JSON.stringify(dropped[0]?.error).slice(0, 500)}`,
      );
    }
    return { indexed: stats.successful, skipped };
  }

  /** Removes one record's document (the upstream no longer has it); false when there was none. */
  async deleteRecord(
    connectorType: string,
    entity: string,
    connectorId: string,
    key: string,
    options: { refresh?: IndexRefresh } = {},
  ): Promise<boolean> {
    const response = await this.#client.delete(
      {
        index: this.alias(connectorType, entity),
        id: indexDocumentId(connectorId, key),
        routing: connectorId,
        refresh: options.refresh ?? false,
      },
      { ignore: [404] },
    );
    return response.statusCode !== 404;
  }

  /** After a complete full-refresh run: removes the connector's documents that this run did not write. */
  async deleteNotWrittenBy(connectorType: string, entity: string, connectorId: string, runId: string): Promise<number> {
    return this.#deleteMatching(this.alias(connectorType, entity), connectorId, {
      bool: {
        filter: [{ term: { [CONNECTOR_ID_FIELD]: connectorId } }],
        must_not: [{ term: { [SYNC_RUN_FIELD]: runId } }],
      },
    });
  }

  async deleteConnector(connectorType: string, entities: readonly string[], connectorId: string): Promise<void> {
    for (const entity of entities) {
      await this.#deleteMatching(this.alias(connectorType, entity), connectorId, {
        term: { [CONNECTOR_ID_FIELD]: connectorId },
      });
    }
  }

  /**
   * Delete-by-query without the reindex module (the local distribution ships without it): page through the
   * matching ids in `_key` order and bulk-delete them. Idempotent, so an interrupted delete can simply run again.
   */
  async #deleteMatching(index: string, connectorId: string, query: Record<string, unknown>): Promise<number> {
    let deleted = 0;
    for (;;) {
      const response = await this.#client.search(
        { index, routing: connectorId, body: { query, size: DELETE_PAGE, _source: false, sort: [{ _key: 'asc' }] } },
        { ignore: [404] },
      );
      if (response.statusCode === 404) return deleted;
      const hits = (response.body as { hits: { hits: { _id: string; _index: string }[] } }).hits.hits;
      if (hits.length === 0) break;
      const body = hits.map((hit) => ({ delete: { _index: hit._index, _id: hit._id, routing: connectorId } }));
      await this.#client.bulk({ body, refresh: true });
      deleted += hits.length;
      if (hits.length < DELETE_PAGE) break;
    }
    return deleted;
  }

  async count(connectorType: string, entity: string, connectorId: string): Promise<number> {
    const response = await this.#client.count(
      {
        index: this.alias(connectorType, entity),
        routing: connectorId,
        body: { query: { term: { [CONNECTOR_ID_FIELD]: connectorId } } },
      },
      { ignore: [404] },
    );
    return (response.body as { count?: number }).count ?? 0;
  }

  async refresh(connectorType: string, entity: string): Promise<void> {
    await this.#client.indices.refresh({ index: this.alias(connectorType, entity) }, { ignore: [404] });
  }
}

function isAlreadyExists(error: unknown): boolean {
  return JSON.stringify((error as { body?: unknown })?.body ?? '').includes('resource_already_exists_exception');
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
