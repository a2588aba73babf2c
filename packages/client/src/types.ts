import type { Connector } from './generated/api.ts';
import type { ConnectorKinds } from './generated/catalog.ts';
import type { SearchFields, SearchParams, SearchResult } from './search-types.ts';

/** A canonical connector_type: `Orb`, `Google-Drive`, ... */
export type ConnectorType = keyof ConnectorKinds;

export type EntityName<K extends ConnectorType> = keyof ConnectorKinds[K]['entities'] & string;

/** What the generated catalog holds for each entity. */
interface EntityDescriptor {
  record: object;
  meta: object;
  actions: object;
  search: object | undefined;
  searchRecord: object;
  pageable: boolean;
}

type Entity<K extends ConnectorType, E extends EntityName<K>> = Extract<
  ConnectorKinds[K]['entities'][E],
  EntityDescriptor
>;

/** The record of an entity, as a live `get`/`list` returns it. */
export type RecordOf<K extends ConnectorType, E extends EntityName<K>> = Entity<K, E>['record'];

/** The searchable fields' map of an entity (never for entities that cannot be searched). */
export type SearchFieldsOf<K extends ConnectorType, E extends EntityName<K>> = Entity<
  K,
  E
>['search'] extends SearchFields
  ? Entity<K, E>['search']
  : never;

/** Entities with the `search` action. */
export type SearchableEntity<K extends ConnectorType> = {
  [E in EntityName<K>]: Entity<K, E>['search'] extends SearchFields ? E : never;
}[EntityName<K>];

/** Entities whose `list` can be paged by `listAll`. */
export type PageableEntity<K extends ConnectorType> = {
  [E in EntityName<K>]: Entity<K, E>['pageable'] extends true ? E : never;
}[EntityName<K>];

export type ActionName<K extends ConnectorType, E extends EntityName<K>> =
  | (keyof Entity<K, E>['actions'] & string)
  | (Entity<K, E>['search'] extends SearchFields ? 'search' : never);

export type ParamsOf<K extends ConnectorType, E extends EntityName<K>, A extends ActionName<K, E>> = A extends 'search'
  ? SearchParams<SearchFieldsOf<K, E>>
  : A extends keyof Entity<K, E>['actions']
    ? Entity<K, E>['actions'][A]
    : never;

/** A download: the bytes as a web stream (never buffered), with the upstream's headers. */
export interface Download {
  status: number;
  body: ReadableStream<Uint8Array>;
  contentType: string | null;
  contentLength: number | null;
  contentDisposition: string | null;
  /** Set on a 206 answer to `range_header`. */
  contentRange: string | null;
  headers: Headers;
}

export interface ListResult<K extends ConnectorType, E extends EntityName<K>> {
  data: RecordOf<K, E>[];
  meta: Entity<K, E>['meta'];
}

export type ResultOf<K extends ConnectorType, E extends EntityName<K>, A extends ActionName<K, E>> = A extends 'search'
  ? SearchResult<Entity<K, E>['searchRecord']>
  : A extends 'list'
    ? ListResult<K, E>
    : A extends 'get'
      ? { data: RecordOf<K, E> }
      : A extends 'download'
        ? Download
        : // create / update / delete answer what the upstream answered, which the catalog does not describe.
          { data: unknown };

/** `params` may be left out when every parameter is optional. */
type ParamsField<P> = Record<string, never> extends P ? { params?: P } : { params: P };

export type ExecuteRequest<K extends ConnectorType, E extends EntityName<K>, A extends ActionName<K, E>> = {
  entity: E;
  action: A;
  signal?: AbortSignal;
} & ParamsField<ParamsOf<K, E, A>>;

/** One entity's sync status, as GET connector shows it. */
export type EntityStatus = NonNullable<Connector['entities'][string]>;

/**
 * A connector as the API shows it (never its credentials), with per-entity sync status: the API's own schema
 * (generated from its OpenAPI document), with the kind's replication_config typed.
 */
export type ConnectorView<K extends ConnectorType = ConnectorType> = Omit<
  Connector,
  'connector_type' | 'replication_config'
> & {
  connector_type: K;
  replication_config: ConnectorKinds[K]['replicationConfig'];
};

export type CreateConnectorInput<K extends ConnectorType> = {
  connector_type: K;
  customer_name: string;
  name: string;
  credentials: ConnectorKinds[K]['credentials'];
  replication_config: ConnectorKinds[K]['replicationConfig'];
} & (Record<string, never> extends ConnectorKinds[K]['config']
  ? { config?: ConnectorKinds[K]['config'] }
  : { config: ConnectorKinds[K]['config'] });

export interface SyncOptions<E extends string = string> {
  entity?: E;
  mode?: 'incremental' | 'full';
}
