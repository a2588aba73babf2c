import type { EntityCatalog } from '@conduit/connectors';
import type { AppliedWrite, ChangeSource, WrittenChanges } from '@conduit/db';
import { copyScope, INTERNAL_FIELDS, indexDocumentId } from '@conduit/search-dsl';
import type { Client } from '@opensearch-project/opensearch';
import { attachKnownVectors, setVectors, type VectorSource, type VectorUpdate } from './document-vectors.ts';
import type { IndexLifecycle } from './index-lifecycle.ts';
import { DELETED_AT_FIELD, SYNC_RUN_FIELD, searchDocument } from './search-documents.ts';
import {
  type BulkAnswer,
  COPY_PAGE,
  tombstoneOf,
  uniqueById,
  VERSION_TYPE,
  type VersionedDocument,
  versionAt,
} from './versioned-documents.ts';

const CONNECTOR_ID_FIELD = INTERNAL_FIELDS.connectorId;
const DELETED_FIELD = INTERNAL_FIELDS.deleted;
/** Items refused with 429 (the engine's write queue full) are retried this many times, this far apart. */
const BULK_RETRIES = 5;
const BULK_RETRY_WAIT_MS = 500;

/**
 * Writes go out as bulk requests of about half a megabyte (a sync write group of 1,000 Orb customers is about
 * 0.9 MB), two of them in flight at once (bench:sync prints the fastest setting of the machine it runs on).
 */
const BULK: BulkSetting = { flushBytes: 500_000, concurrency: 2 };

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
 * The copy's writes: versioned upserts and tombstones, the removal of what a full pass did not write, the purge of
 * old tombstones, a deleted connector's documents, and counts. Each write returns what the engine applied
 * (WrittenChanges); appending it to the change feed is the writer's (ChangeFeedRepository.appendWritten). Records
 * of entities with embedded fields carry their vectors (document-vectors.ts, docs/search.md).
 */
export class CopyWriter {
  readonly #client: Client;
  readonly #indexes: IndexLifecycle;
  readonly #bulk: BulkSetting;
  readonly #vectors: VectorSource | undefined;

  /**
   * `options.bulk`: another bulk setting (the benchmarks' grid of raw settings). `options.vectors`: the vectors of
   * entities with embedded fields (search by meaning, docs/search.md); none are written without it.
   */
  constructor(
    client: Client,
    indexes: IndexLifecycle,
    options: { readonly bulk?: BulkSetting; readonly vectors?: VectorSource } = {},
  ) {
    this.#client = client;
    this.#indexes = indexes;
    this.#bulk = options.bulk ?? BULK;
    this.#vectors = options.vectors;
  }

  /**
   * Idempotent, versioned bulk write: the same record always lands on the same document id, with its read instant
   * as version; a record the copy already holds from a newer read is dropped (counted as `stale`), not an error.
   */
  async writeRecords(
    connectorType: string,
    entity: EntityCatalog,
    connectorId: string,
    runId: string,
    records: readonly Record<string, unknown>[],
    options: CopyWriteOptions,
  ): Promise<IndexedBatch & WrittenChanges> {
    const alias = await this.#indexes.ensureIndex(connectorType, entity);
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
    // Vectors known for a text ride along with the write; the texts without one are queued once written, so the
    // embedding job never embeds a record the engine refused as stale.
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
    updates: readonly VectorUpdate[],
  ): Promise<number> {
    return setVectors(this.#client, this.#indexes.alias(connectorType, entity), connectorId, updates);
  }

  /**
   * Removes records (the upstream no longer has them) by writing their tombstones, versioned like any write:
   * never searchable, and a page read before the removal cannot bring the record back. Removing a record the copy
   * never had still leaves a tombstone. `applied` holds the removals applied (not older than what the copy held).
   */
  async writeRemovals(
    connectorType: string,
    entity: EntityCatalog,
    connectorId: string,
    keys: readonly string[],
    options: CopyWriteOptions,
  ): Promise<WrittenChanges> {
    const alias = await this.#indexes.ensureIndex(connectorType, entity);
    const documents = keys.map((key, i) => tombstoneOf(connectorId, key, versionAt(options.readAt, i)));
    const applied = await this.#writeVersioned(alias, connectorId, documents, options.refresh);
    return { target: { connectorId, entity: entity.name, source: options.source ?? 'sync' }, applied };
  }

  /**
   * After a complete full pass: removes the connector's records that this run did not write, as tombstones
   * versioned with the instant the pass began reading (`readAt`), a page at a time; each page's removals are
   * yielded once applied, for the caller to append to the feed before it asks for the next. A record written from
   * a newer read meanwhile (a webhook's re-read) is newer than that, so the engine keeps it.
   */
  async *removeNotWrittenBy(
    connectorType: string,
    entity: EntityCatalog,
    connectorId: string,
    runId: string,
    readAt: number,
  ): AsyncGenerator<WrittenChanges> {
    const alias = await this.#indexes.ensureIndex(connectorType, entity);
    const scope = copyScope(connectorId);
    let after: (string | number)[] | undefined;
    for (;;) {
      const response = await this.#client.search({
        index: alias,
        routing: connectorId,
        body: {
          query: {
            bool: { filter: scope.filter, must_not: [...scope.must_not, { term: { [SYNC_RUN_FIELD]: runId } }] },
          },
          size: COPY_PAGE,
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
      yield { target: { connectorId, entity: entity.name, source: 'full_pass' }, applied };
      if (hits.length < COPY_PAGE) break;
      after = hits.at(-1)!.sort;
    }
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
          index: this.#indexes.everyIndex,
          body: {
            query: {
              bool: {
                filter: [{ term: { [DELETED_FIELD]: true } }, { range: { [DELETED_AT_FIELD]: { lt: before } } }],
              },
            },
            size: COPY_PAGE,
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
      if (hits.length < COPY_PAGE) break;
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
      await this.#indexes.refresh(connectorType, entity);
      await this.#deleteMatching(this.#indexes.alias(connectorType, entity), connectorId, {
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
        { index, routing: connectorId, body: { query, size: COPY_PAGE, _source: false, sort: [{ _key: 'asc' }] } },
        { ignore: [404] },
      );
      if (response.statusCode === 404) return deleted;
      const hits = (response.body as { hits: { hits: { _id: string; _index: string }[] } }).hits.hits;
      if (hits.length === 0) break;
      const body = hits.map((hit) => ({ delete: { _index: hit._index, _id: hit._id, routing: connectorId } }));
      await this.#client.bulk({ body, refresh: true });
      deleted += hits.length;
      if (hits.length < COPY_PAGE) break;
    }
    return deleted;
  }

  /** The connector's records in the copy (tombstones are not records). */
  async count(connectorType: string, entity: string, connectorId: string): Promise<number> {
    const response = await this.#client.count(
      {
        index: this.#indexes.alias(connectorType, entity),
        routing: connectorId,
        body: { query: { bool: copyScope(connectorId) } },
      },
      { ignore: [404] },
    );
    return (response.body as { count?: number }).count ?? 0;
  }
}
