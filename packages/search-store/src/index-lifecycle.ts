import { createHash } from 'node:crypto';
import type { EntityCatalog } from '@conduit/connectors';
import { buildIndexMapping, INTERNAL_FIELDS, toIndexDocument, VECTOR_FIELDS } from '@conduit/search-dsl';
import type { Client } from '@opensearch-project/opensearch';
import { CoalescedRefresh } from './coalesced-refresh.ts';
import { type UnembeddedText, type VectorSource, vectorOnCopy } from './document-vectors.ts';
import { DELETED_AT_FIELD, SYNC_RUN_FIELD } from './search-documents.ts';
import { type BulkAnswer, COPY_PAGE, VERSION_TYPE } from './versioned-documents.ts';

const CONNECTOR_ID_FIELD = INTERNAL_FIELDS.connectorId;
const DELETED_FIELD = INTERNAL_FIELDS.deleted;

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

/**
 * The copy's indices: one per connector kind and entity behind an alias, shared by all connectors of that kind.
 * Index versions are named after a hash of the generated mapping, so a changed mapping gets a new index, filled
 * from the old one, and an alias swap.
 */
export class IndexLifecycle {
  readonly #client: Client;
  readonly #namespace: string;
  readonly #replicas: number;
  readonly #ensured = new Map<string, Promise<string>>();
  readonly #refreshes: CoalescedRefresh;
  readonly #vectors: VectorSource | undefined;

  /**
   * `replicas`: of each index (a dynamic setting: an index made before a change follows it). `vectors`: where the
   * texts a new mapping version copies without their vector go (search by meaning); none are queued without it.
   */
  constructor(
    client: Client,
    namespace: string,
    options: { readonly replicas: number; readonly vectors?: VectorSource },
  ) {
    this.#client = client;
    this.#namespace = namespace;
    this.#replicas = options.replicas;
    this.#vectors = options.vectors;
    this.#refreshes = new CoalescedRefresh(async (index) => {
      await client.indices.refresh({ index }, { ignore: [404] });
    });
  }

  /** The pattern matching every index of this namespace. */
  get everyIndex(): string {
    return `${this.#namespace}_*`;
  }

  alias(connectorType: string, entity: string): string {
    return `${this.#namespace}_${connectorType}_${entity}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  }

  /** Creates the current index version and points the alias at it (once per process and entity). */
  ensureIndex(connectorType: string, entity: EntityCatalog): Promise<string> {
    const alias = this.alias(connectorType, entity.name);
    // By alias, fields and embedded fields: a kind defined at run time may change them, and then its index is rebuilt.
    const key = `${alias}\n${JSON.stringify(entity.searchable)}\n${JSON.stringify(entity.embed ?? [])}`;
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

  /** Makes every write acknowledged before the call searchable (concurrent callers share refreshes). */
  refresh(connectorType: string, entity: string): Promise<void> {
    return this.#refreshes.refresh(this.alias(connectorType, entity));
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
      // An index made before the replica count changed (a single node grown into a cluster) follows it.
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
          size: COPY_PAGE,
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
}

function isAlreadyExists(error: unknown): boolean {
  return JSON.stringify((error as { body?: unknown })?.body ?? '').includes('resource_already_exists_exception');
}

function vectorOf(source: StoredDocument): { vector?: unknown; hash?: unknown } {
  return {
    vector: source[VECTOR_FIELDS.vector as '_embedding'],
    hash: source[VECTOR_FIELDS.textHash as '_embedding_hash'],
  };
}
