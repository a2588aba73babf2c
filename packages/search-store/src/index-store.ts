import { createHash } from 'node:crypto';
import type { EntityCatalog } from '@conduit/connectors';
import {
  buildIndexMapping,
  copyScope,
  INTERNAL_FIELDS,
  indexDocumentId,
  toIndexDocument,
  VECTOR_FIELDS,
} from '@conduit/search-dsl';
import type { Client } from '@opensearch-project/opensearch';
import { type AppliedWrite, type ChangeSink, type ChangeSource, type ChangeTarget, NO_CHANGES } from './change-sink.ts';
import { CoalescedRefresh } from './coalesced-refresh.ts';
import {
  attachKnownVectors,
  setVectors,
  type UnembeddedText,
  type VectorSource,
  vectorOnCopy,
} from './document-vectors.ts';
import { DELETED_AT_FIELD, SYNC_RUN_FIELD, searchDocument } from './search-documents.ts';
import {
  type LookupAnswer,
  type SearchAnswer,
  type SearchRequestOptions,
  SearchTransport,
  type SearchTransportOptions,
  timedOut,
} from './search-transport.ts';
import { tombstoneOf, uniqueById, type VersionedDocument, versionAt } from './versioned-documents.ts';

const CONNECTOR_ID_FIELD = INTERNAL_FIELDS.connectorId;
const DELETED_FIELD = INTERNAL_FIELDS.deleted;
/**
 * Every write carries its upstream read instant as the document's version: the engine keeps a write only when it
 * is at least as new as what it holds (docs/changes.md). `external_gte`, not `external`: a retried write of the
 * same read (same version) lands again instead of failing.
 */
const VERSION_TYPE = 'external_gte';
const DELETE_PAGE = 1000;
/** Bulk requests of about this size, one at a time, unless the store is told otherwise (OPENSEARCH_BULK_*). */
const BULK_FLUSH_BYTES = 5_000_000;
/** Items refused with 429 are retried this many times, BULK_RETRY_WAIT_MS apart, before the page fails. */
const BULK_RETRIES = 5;
const BULK_RETRY_WAIT_MS = 500;

interface StoredDocument {
  _embedding?: number[];
  _embedding_hash?: string;
  _connector_id: string;
  _key: string;
  _record?: Record<string, unknown>;
  _sync_run?: string;
  _deleted?: boolean;
  _deleted_at?: number;
}

/** Bulk requests of about `flushBytes` bytes, `concurrency` of them in flight at once. */
export interface BulkSetting {
  readonly flushBytes: number;
  readonly concurrency: number;
}

/** `wait_for`: the call returns once the write is visible to search (read-your-writes, webhooks). */
export type IndexRefresh = boolean | 'wait_for';

export interface IndexedBatch {
  /** Records the copy took (as new as or newer than what it held). */
  readonly indexed: number;
  /** Records without a key cannot get a stable document id; they are counted, not indexed. */
  readonly skipped: number;
  /** Records older than what the copy already held for them: dropped, as the versioning rule says. */
  readonly stale: number;
}

/** A write the engine acknowledged whose change-feed append is still to come (IndexStore.recordChanges). */
export interface WrittenChanges {
  readonly target: ChangeTarget;
  /** What the engine applied, in order (the stale writes it refused are not here). */
  readonly applied: readonly AppliedWrite[];
}

export interface CopyWriteOptions {
  /**
   * When the upstream read that returned the records began (ms since epoch, taken before the request was sent):
   * the version of each record in the copy. One instant for all, or one per record.
   */
  readonly readAt: number | readonly number[];
  /** Which path wrote (the change feed says it): `sync` unless given. */
  readonly source?: ChangeSource;
  readonly refresh?: IndexRefresh;
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
  readonly #changes: ChangeSink;
  readonly #replicas: number;
  readonly #refreshes = new CoalescedRefresh(async (index) => {
    await this.#client.indices.refresh({ index }, { ignore: [404] });
  });
  readonly #bulk: BulkSetting;
  readonly #vectors: VectorSource | undefined;

  /**
   * `options.searchUrl`: the node searches go to through their own pool, with at most `options.searchRequests`
   * search requests open at once, and as many lookups (see SearchTransport); without it the store only writes
   * (the worker, bulk tests). `options.changes`: told of every write the engine applied (the change feed).
   */
  constructor(
    client: Client,
    namespace: string,
    options: {
      searchUrl?: string;
      searchRequests?: number;
      transport?: SearchTransportOptions;
      changes?: ChangeSink;
      /** Replicas of each index (0 when unset: a single node). */
      replicas?: number;
      /** How writes are cut into bulk requests, and how many go at once (one request of up to 5 MB unless set). */
      bulk?: BulkSetting;
      /** The vectors of entities with embedded fields (search by meaning); none are written without it. */
      vectors?: VectorSource;
    } = {},
  ) {
    this.#client = client;
    this.#namespace = namespace;
    this.#replicas = options.replicas ?? 0;
    this.#bulk = options.bulk ?? { flushBytes: BULK_FLUSH_BYTES, concurrency: 1 };
    this.#transport = options.searchUrl
      ? new SearchTransport(options.searchUrl, { ...options.transport, requests: options.searchRequests })
      : undefined;
    this.#changes = options.changes ?? NO_CHANGES;
    this.#vectors = options.vectors;
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
  ): Promise<LookupAnswer> {
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
    // By alias and fields: a kind defined at run time may change its fields, and then its index is rebuilt.
    const key = `${alias}\n${JSON.stringify(entity.searchable)}`;
    let pending = this.#ensured.get(key);
    if (!pending) {
      pending = this.#ensure(alias, entity, connectorType).catch((error: unknown) => {
        this.#ensured.delete(key);
        throw error;
      });
      this.#ensured.set(key, pending);
    }
    return pending;
  }

  async #ensure(alias: string, entity: EntityCatalog, connectorType: string): Promise<string> {
    if (!entity.searchable) throw new Error(`${entity.name} is not searchable`);
    const generated = buildIndexMapping(entity.searchable, entity.recordKey, entity.embed);
    const properties = (generated.mappings as { properties: Record<string, unknown> }).properties;
    const definition = {
      settings: { ...generated.settings, number_of_shards: 1, number_of_replicas: 0 },
      mappings: {
        ...generated.mappings,
        properties: {
          ...properties,
          [SYNC_RUN_FIELD]: { type: 'keyword' },
          [DELETED_FIELD]: { type: 'boolean' },
          [DELETED_AT_FIELD]: { type: 'long' },
        },
      },
    };
    const version = createHash('sha256').update(JSON.stringify(definition)).digest('hex').slice(0, 10);
    const index = `${alias}__${version}`;
    const exists = await this.#client.indices.exists({ index });
    if (!exists.body) {
      try {
        // Replicas are a dynamic setting, so they stay out of the version: the count may change without a new index.
        const body: Record<string, unknown> = {
          ...definition,
          settings: { ...definition.settings, number_of_replicas: this.#replicas },
        };
        // The alias's first index carries the alias from its creation: each cluster-state update costs the engine
        // a persisted metadata write, and adding the alias after would be one more. With an older index behind the
        // alias, the alias moves below, once the documents are copied.
        if ((await this.#aliasTargets(alias)).length === 0) body.aliases = { [alias]: { is_write_index: true } };
        await this.#client.indices.create({ index, body });
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
      const unembedded = new Map<string, UnembeddedText[]>();
      for (const old of current.filter((i) => i !== index)) await this.#copyDocuments(old, index, entity, unembedded);
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
      // Texts the copy holds without their vector go to the embedding job once the alias points at the new index.
      for (const [connectorId, texts] of unembedded) {
        await this.#vectors?.unembedded({ connectorType, entity: entity.name, connectorId }, texts);
      }
    }
    return alias;
  }

  /**
   * Copies every document, tombstones included, with its version: a write that reached the new index first (a
   * newer read) is kept, and the copy never makes a record older than it was.
   */
  async #copyDocuments(
    from: string,
    to: string,
    entity: EntityCatalog,
    unembedded: Map<string, UnembeddedText[]>,
  ): Promise<number> {
    let copied = 0;
    let after: (string | number)[] | undefined;
    for (;;) {
      const response = await this.#client.search({
        index: from,
        body: {
          size: DELETE_PAGE,
          version: true,
          query: { match_all: {} },
          sort: [{ [CONNECTOR_ID_FIELD]: 'asc' }, { _key: 'asc' }],
          ...(after ? { search_after: after } : {}),
        },
      });
      const hits = (
        response.body as {
          hits: { hits: { _id: string; _version: number; _source: StoredDocument; sort: (string | number)[] }[] };
        }
      ).hits.hits;
      if (hits.length === 0) break;
      const body: Record<string, unknown>[] = [];
      for (const hit of hits) {
        const source = hit._source;
        const record = { ...(source._record ?? {}), [entity.recordKey]: source._key };
        // A record's vector moves with it: the new mapping must not embed unchanged texts again.
        const carried =
          source[DELETED_FIELD] || !this.#vectors ? { fields: {} } : vectorOnCopy(entity, record, vectorOf(source));
        if (carried.missing) {
          const list = unembedded.get(source._connector_id) ?? [];
          list.push({ id: hit._id, ...carried.missing });
          unembedded.set(source._connector_id, list);
        }
        const copy: Record<string, unknown> = source[DELETED_FIELD]
          ? { ...source }
          : {
              ...toIndexDocument(record, {
                searchable: entity.searchable ?? {},
                recordKey: entity.recordKey,
                connectorId: source._connector_id,
              }),
              [SYNC_RUN_FIELD]: source[SYNC_RUN_FIELD],
              ...carried.fields,
            };
        body.push({
          index: {
            _index: to,
            _id: hit._id,
            routing: source._connector_id,
            version: hit._version,
            version_type: VERSION_TYPE,
          },
        });
        body.push(copy);
      }
      const answer = (await this.#client.bulk({ body, refresh: false })).body as BulkAnswer;
      // 409: the new index already holds a newer write of that record.
      const failed = answer.items.find((item) => (item.index?.status ?? 500) >= 300 && item.index?.status !== 409);
      if (failed) throw new Error(`copying ${from} to ${to} failed: ${JSON.stringify(failed.index?.error)}`);
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

  /**
   * Idempotent, versioned bulk write: the same record always lands on the same document id, with its read instant
   * as version; a record the copy already holds from a newer read is dropped (counted as `stale`), not an error.
   */
  async writeBatch(...write: Parameters<IndexStore['writeRecords']>): Promise<IndexedBatch> {
    const written = await this.writeRecords(...write);
    await this.recordChanges(written);
    return { indexed: written.indexed, skipped: written.skipped, stale: written.stale };
  }

  /**
   * writeBatch without the change-feed append: the caller passes the result to recordChanges once it wants the
   * events appended (a sync run overlaps that with its next group's bulk). Until then a crash loses the events
   * only until the records are read again (docs/changes.md), so the caller must not checkpoint past this write
   * before recordChanges resolved.
   */
  async writeRecords(
    connectorType: string,
    entity: EntityCatalog,
    connectorId: string,
    runId: string,
    records: readonly Record<string, unknown>[],
    options: CopyWriteOptions,
  ): Promise<IndexedBatch & WrittenChanges> {
    const alias = await this.ensureIndex(connectorType, entity);
    const documents: VersionedDocument[] = [];
    let skipped = 0;
    records.forEach((record, i) => {
      const document = searchDocument(entity, connectorId, runId, record);
      if (document === null) {
        skipped++;
        return;
      }
      const version = versionAt(options.readAt, i);
      const write: AppliedWrite = { kind: 'upsert', key: document.key, version, record };
      documents.push({ id: document.id, version, doc: document.doc, write });
    });
    const embedding = this.#vectors && entity.embed?.length ? this.#vectors : undefined;
    const target = { connectorType, entity: entity.name, connectorId };
    const unembedded = embedding ? await attachKnownVectors(embedding, target, entity, documents) : [];
    const applied = await this.#writeVersioned(alias, connectorId, documents, options.refresh);
    if (embedding && unembedded.length > 0) {
      const written = new Set(applied.map((write) => indexDocumentId(connectorId, write.key)));
      await embedding.unembedded(
        target,
        unembedded.filter((text) => written.has(text.id)),
      );
    }
    return {
      indexed: applied.length,
      skipped,
      stale: uniqueById(documents).length - applied.length,
      target: { connectorId, entity: entity.name, source: options.source ?? 'sync' },
      applied,
    };
  }

  /** Sets vectors computed after a write on the documents that still hold their text (document-vectors.ts). */
  setVectors(
    connectorType: string,
    entity: string,
    connectorId: string,
    updates: Parameters<typeof setVectors>[3],
  ): Promise<number> {
    return setVectors(this.#client, this.alias(connectorType, entity), connectorId, updates);
  }

  /** Appends what a write applied to the change feed (see writeRecords). */
  async recordChanges(written: WrittenChanges): Promise<void> {
    await this.#changes.applied(written.target, written.applied);
  }

  /**
   * Removes records (the upstream no longer has them) by writing their tombstones, versioned like any write:
   * never searchable, and a page read before the removal cannot bring the record back. Removing a record the copy
   * never had still leaves a tombstone. Returns the removals applied (not older than what the copy held).
   */
  async removeRecords(
    connectorType: string,
    entity: EntityCatalog,
    connectorId: string,
    keys: readonly string[],
    options: CopyWriteOptions,
  ): Promise<number> {
    const written = await this.writeRemovals(connectorType, entity, connectorId, keys, options);
    await this.recordChanges(written);
    return written.applied.length;
  }

  /** removeRecords without the change-feed append, as writeRecords. */
  async writeRemovals(
    connectorType: string,
    entity: EntityCatalog,
    connectorId: string,
    keys: readonly string[],
    options: CopyWriteOptions,
  ): Promise<WrittenChanges> {
    const alias = await this.ensureIndex(connectorType, entity);
    const documents = keys.map((key, i) => tombstoneOf(connectorId, key, versionAt(options.readAt, i)));
    const applied = await this.#writeVersioned(alias, connectorId, documents, options.refresh);
    return { target: { connectorId, entity: entity.name, source: options.source ?? 'sync' }, applied };
  }

  /**
   * After a complete full pass: removes the connector's records that this run did not write, as tombstones
   * versioned with the instant the pass began reading (`readAt`). A record written from a newer read meanwhile
   * (a webhook's re-read) is newer than that, so the engine keeps it.
   */
  async removeNotWrittenBy(
    connectorType: string,
    entity: EntityCatalog,
    connectorId: string,
    runId: string,
    readAt: number,
  ): Promise<number> {
    const alias = await this.ensureIndex(connectorType, entity);
    const scope = copyScope(connectorId);
    let removed = 0;
    let after: (string | number)[] | undefined;
    for (;;) {
      const response = await this.#client.search({
        index: alias,
        routing: connectorId,
        body: {
          query: {
            bool: { filter: scope.filter, must_not: [...scope.must_not, { term: { [SYNC_RUN_FIELD]: runId } }] },
          },
          size: DELETE_PAGE,
          _source: false,
          sort: [{ _key: 'asc' }],
          ...(after ? { search_after: after } : {}),
        },
      });
      const hits = (response.body as { hits: { hits: { _id: string; sort: (string | number)[] }[] } }).hits.hits;
      if (hits.length === 0) break;
      // Sorted by `_key` alone: each hit's sort value is its record key.
      const documents = hits.map((hit) => tombstoneOf(connectorId, String(hit.sort[0]), readAt));
      const applied = await this.#writeVersioned(alias, connectorId, documents, true);
      await this.#changes.applied({ connectorId, entity: entity.name, source: 'full_pass' }, applied);
      removed += applied.length;
      if (hits.length < DELETE_PAGE) break;
      after = hits.at(-1)!.sort;
    }
    return removed;
  }

  /**
   * Writes documents with their versions (the last of the same id in the batch, the newest, stands for it):
   * returns what the engine applied, in order; the items it refused as older than what it holds (409) are dropped.
   */
  async #writeVersioned(
    alias: string,
    connectorId: string,
    documents: readonly VersionedDocument[],
    refresh: IndexRefresh | undefined,
  ): Promise<AppliedWrite[]> {
    const unique = uniqueById(documents);
    if (unique.length === 0) return [];
    // The client's bulk helper: requests of about `flushBytes`, `concurrency` in flight (ids are unique here, so
    // their order between requests does not matter), and the items the engine refuses with 429 (write queue full)
    // are sent again after a pause instead of failing the page.
    const stale = new Set<string>();
    const dropped: { status: number; error: unknown }[] = [];
    await this.#client.helpers.bulk({
      datasource: unique,
      onDocument: (document) => [
        {
          index: {
            _index: alias,
            _id: document.id,
            routing: connectorId,
            version: document.version,
            version_type: VERSION_TYPE,
          },
        },
        document.doc,
      ],
      flushBytes: this.#bulk.flushBytes,
      concurrency: this.#bulk.concurrency,
      retries: BULK_RETRIES,
      wait: BULK_RETRY_WAIT_MS,
      onDrop: (item) => {
        const id = (item.operation as { index?: { _id?: string } }).index?._id;
        if (item.status === 409 && id !== undefined) stale.add(id);
        else dropped.push({ status: item.status, error: item.error });
      },
      ...(refresh ? { refresh } : {}),
    });
    if (dropped.length > 0) {
      throw new Error(
        `bulk indexing failed for ${dropped.length} documents: ${JSON.stringify(dropped[0]?.error).slice(0, 500)}`,
      );
    }
    return unique.filter((document) => !stale.has(document.id)).map((document) => document.write);
  }

  /**
   * Deletes the tombstones of records removed before `before` (ms since epoch) in every index of this namespace:
   * past the retention (CHANGES_RETENTION), no write still in flight is that old. A tombstone replaced meanwhile
   * by a newer write is not deleted (the delete carries the version it saw).
   */
  async purgeTombstones(before: number): Promise<number> {
    let purged = 0;
    let after: (string | number)[] | undefined;
    for (;;) {
      const response = await this.#client.search(
        {
          index: `${this.#namespace}_*`,
          body: {
            query: {
              bool: {
                filter: [{ term: { [DELETED_FIELD]: true } }, { range: { [DELETED_AT_FIELD]: { lt: before } } }],
              },
            },
            size: DELETE_PAGE,
            version: true,
            _source: [CONNECTOR_ID_FIELD],
            sort: [{ [CONNECTOR_ID_FIELD]: 'asc' }, { _key: 'asc' }],
            ...(after ? { search_after: after } : {}),
          },
        },
        { ignore: [404] },
      );
      if (response.statusCode === 404) return purged;
      const hits = (
        response.body as {
          hits: {
            hits: {
              _id: string;
              _index: string;
              _version: number;
              _source: { _connector_id: string };
              sort: (string | number)[];
            }[];
          };
        }
      ).hits.hits;
      if (hits.length === 0) break;
      const body = hits.map((hit) => ({
        delete: {
          _index: hit._index,
          _id: hit._id,
          routing: hit._source._connector_id,
          version: hit._version,
          version_type: VERSION_TYPE,
        },
      }));
      const answer = (await this.#client.bulk({ body, refresh: false })).body as BulkAnswer;
      purged += answer.items.filter((item) => (item.delete?.status ?? 500) < 300).length;
      if (hits.length < DELETE_PAGE) break;
      after = hits.at(-1)!.sort;
    }
    return purged;
  }

  /**
   * Removes every document of the connector acknowledged before the call. The search that finds them sees only
   * what a refresh made visible, so the call refreshes first: a batch written just before (a run that then finds
   * its connector deleted) would otherwise stay for good.
   */
  async deleteConnector(connectorType: string, entities: readonly string[], connectorId: string): Promise<void> {
    for (const entity of entities) {
      await this.#refreshes.refresh(this.alias(connectorType, entity));
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

  /** The connector's records in the copy (tombstones are not records). */
  async count(connectorType: string, entity: string, connectorId: string): Promise<number> {
    const response = await this.#client.count(
      {
        index: this.alias(connectorType, entity),
        routing: connectorId,
        body: { query: { bool: copyScope(connectorId) } },
      },
      { ignore: [404] },
    );
    return (response.body as { count?: number }).count ?? 0;
  }

  /** Makes every write acknowledged before the call searchable (concurrent callers share refreshes). */
  refresh(connectorType: string, entity: string): Promise<void> {
    return this.#refreshes.refresh(this.alias(connectorType, entity));
  }
}

interface BulkAnswer {
  items: Partial<Record<'index' | 'delete', { status: number; error?: unknown }>>[];
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

function vectorOf(source: StoredDocument): { vector?: unknown; hash?: unknown } {
  return {
    vector: source[VECTOR_FIELDS.vector as '_embedding'],
    hash: source[VECTOR_FIELDS.textHash as '_embedding_hash'],
  };
}
