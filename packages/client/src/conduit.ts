import {
  type ChangeEventAt,
  type ChangesOptions,
  changesQuery,
  followChanges,
  iterateChanges,
  WebhookEndpoints,
} from './changes.ts';
import { ConnectorDefinitions } from './definitions.ts';
import type {
  AuditPage,
  AuditQuery,
  Catalog,
  ChangesPage,
  OAuthInitiateRequest,
  OAuthInitiateResponse,
  Usage,
  UsageQuery,
} from './generated/api.ts';
import { LIST_PAGING } from './generated/catalog.ts';
import type { Aggregation, SearchParams, SearchResult } from './search-types.ts';
import type { SqlResult, SqlText } from './sql-types.ts';
import { type ConduitOptions, Transport } from './transport.ts';
import type * as T from './types.ts';

const CONNECTORS = '/api/v1/integrations/connectors';
/** Live actions that read only: repeating them is harmless, so they are retried on 429/503. */
const SAFE_ACTIONS = new Set(['list', 'get', 'search', 'download']);

const connectorPath = (id: string, suffix = '') => `${CONNECTORS}/${encodeURIComponent(id)}${suffix}`;

/**
 * The Conduit API, typed from the connector catalog.
 *
 * @example
 * ```ts
 * const conduit = new Conduit({ baseUrl, clientId, clientSecret });
 * const orb = conduit.connector(id, 'Orb');
 * const { data } = await orb.execute({ entity: 'invoices', action: 'search',
 *   params: { query: { filter: { eq: { status: 'paid' } } } } });
 * ```
 */
export class Conduit {
  readonly #transport: Transport;
  readonly connectors: Connectors;
  /** Endpoints that receive the organization's changes, signed (Standard Webhooks). */
  readonly webhookEndpoints: WebhookEndpoints;
  /** Connector kinds the organization defines at run time (docs/definitions.md). */
  readonly definitions: ConnectorDefinitions;

  constructor(options: ConduitOptions) {
    this.#transport = new Transport(options);
    this.connectors = new Connectors(this.#transport);
    this.webhookEndpoints = new WebhookEndpoints(this.#transport);
    this.definitions = new ConnectorDefinitions(this.#transport);
  }

  /** A connector of a known kind: its actions, params and records are typed from the catalog. */
  connector<K extends T.ConnectorType>(connectorId: string, connectorType: K): ConnectorClient<K> {
    return new ConnectorClient(this.#transport, connectorId, connectorType);
  }

  /** The bearer token in use (obtained or refreshed when needed). */
  token(): Promise<string> {
    return this.#transport.token();
  }

  /** The kinds this deployment serves: credentials, config and replication schemas, entities, searchable fields. */
  catalog(): Promise<Catalog> {
    return this.#transport.json('GET', '/api/v1/catalog', { safe: true });
  }

  /**
   * One page of the organization's audit trail, newest first (follow `meta.cursor`).
   *
   * @example
   * const { data } = await conduit.audit({ connector_id: id, action: 'execute', status: '4xx' });
   */
  audit(query: AuditQuery = {}): Promise<AuditPage> {
    const search = new URLSearchParams(
      Object.entries(query)
        .filter(([, value]) => value !== undefined && value !== '')
        .map(([key, value]): [string, string] => [key, String(value)]),
    ).toString();
    return this.#transport.json('GET', `/api/v1/audit${search ? `?${search}` : ''}`, { safe: true });
  }

  /**
   * The organization's usage per hour or day (API calls by class, upstream requests, records synced, deliveries)
   * and its quotas (docs/operations.md, "Usage and quotas").
   *
   * @example
   * const { data, meta } = await conduit.usage({ granularity: 'day' });
   */
  usage(query: UsageQuery = {}): Promise<Usage> {
    const search = new URLSearchParams(
      Object.entries(query)
        .filter(([, value]) => value !== undefined && value !== '')
        .map(([key, value]): [string, string] => [key, String(value)]),
    ).toString();
    return this.#transport.json('GET', `/api/v1/usage${search ? `?${search}` : ''}`, { safe: true });
  }
}

export class Connectors {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Creates a connector; the upstream checks the credentials first (400 naming /credentials when refused). */
  create<K extends T.ConnectorType>(input: T.CreateConnectorInput<K>): Promise<T.ConnectorView<K>> {
    return this.#transport.json('POST', CONNECTORS, { body: input, safe: false });
  }

  /** The connector (never its credentials) with per-entity sync status. */
  get(connectorId: string): Promise<T.ConnectorView> {
    return this.#transport.json('GET', connectorPath(connectorId), { safe: true });
  }

  /** The caller's connectors. */
  async list(): Promise<T.ConnectorView[]> {
    const body = await this.#transport.json<{ data: T.ConnectorView[] }>('GET', CONNECTORS, { safe: true });
    return body.data;
  }

  update(connectorId: string, changes: { name?: string; credentials?: Record<string, unknown> }) {
    return this.#transport.json<T.ConnectorView>('PATCH', connectorPath(connectorId), { body: changes, safe: false });
  }

  async delete(connectorId: string): Promise<void> {
    await this.#transport.request('DELETE', connectorPath(connectorId), { safe: false });
  }

  /** Starts the OAuth consent flow for a new connector of a kind: send the user to `consent_url`. */
  oauthInitiate(input: OAuthInitiateRequest): Promise<OAuthInitiateResponse> {
    return this.#transport.json('POST', `${CONNECTORS}/oauth/initiate`, { body: input, safe: false });
  }

  /** Starts a sync now (202): every replicated entity, or one; `mode: 'full'` re-reads from start_date. */
  sync(connectorId: string, options: T.SyncOptions = {}): Promise<{ connector_id: string; entities: string[] }> {
    return this.#transport.json('POST', connectorPath(connectorId, '/sync'), { body: options, safe: false });
  }
}

export class ConnectorClient<K extends T.ConnectorType> {
  readonly #transport: Transport;
  readonly connectorId: string;
  readonly connectorType: K;

  constructor(transport: Transport, connectorId: string, connectorType: K) {
    this.#transport = transport;
    this.connectorId = connectorId;
    this.connectorType = connectorType;
  }

  /** `POST .../execute`: live actions go to the upstream; `search` answers from the synchronized copy. */
  async execute<E extends T.EntityName<K>, A extends T.ActionName<K, E>>(
    request: T.ExecuteRequest<K, E, A>,
  ): Promise<T.ResultOf<K, E, A>> {
    const { entity, action, signal } = request;
    const params = (request as { params?: unknown }).params;
    if (action === 'search') {
      // As search() does: asked again, with its last answer's ETag (docs/api.md).
      return this.#transport.answer('POST', connectorPath(this.connectorId, '/execute'), {
        body: { entity, action, params },
        safe: true,
        ...(signal ? { signal } : {}),
      });
    }
    const response = await this.#transport.request('POST', connectorPath(this.connectorId, '/execute'), {
      body: params === undefined ? { entity, action } : { entity, action, params },
      safe: SAFE_ACTIONS.has(action),
      ...(signal ? { signal } : {}),
    });
    if (action === 'download') return toDownload(response) as T.ResultOf<K, E, A>;
    return (await response.json()) as T.ResultOf<K, E, A>;
  }

  /** One page of search results; `params.aggregate` results are typed per aggregation in `meta.aggregations`. */
  search<
    E extends T.SearchableEntity<K>,
    G extends Record<string, Aggregation<T.SearchFieldsOf<K, E>>> = Record<string, never>,
  >(
    entity: E,
    params: SearchParams<T.SearchFieldsOf<K, E>, G>,
  ): Promise<SearchResult<T.ResultOf<K, E, 'search' & T.ActionName<K, E>>['data'][number], G>> {
    // Asked again, it carries its last answer's ETag: a 304 reuses that answer (docs/api.md).
    return this.#transport.answer('POST', connectorPath(this.connectorId, '/execute'), {
      body: { entity, action: 'search', params },
      safe: true,
    });
  }

  /** Every record matching the search, page after page (`meta.cursor`), as an async iterator. */
  async *searchAll<E extends T.SearchableEntity<K>>(
    entity: E,
    params: Omit<SearchParams<T.SearchFieldsOf<K, E>>, 'cursor' | 'aggregate'>,
  ): AsyncGenerator<T.ResultOf<K, E, 'search' & T.ActionName<K, E>>['data'][number]> {
    let cursor: string | undefined;
    do {
      const page = await this.search(entity, cursor === undefined ? params : { ...params, cursor });
      yield* page.data;
      cursor = page.meta.has_more && page.meta.cursor ? page.meta.cursor : undefined;
    } while (cursor !== undefined);
  }

  /**
   * One page of a read-only SQL query over the copy (docs/sql.md); follow `meta.cursor` for the next page. The
   * table and double-quoted columns of a literal query are checked against the catalog at compile time.
   *
   * ```ts
   * const { data } = await orb.sql('SELECT status, COUNT(*) AS n FROM invoices GROUP BY status');
   * ```
   */
  sql<Q extends string>(query: SqlText<K, Q>, options: { limit?: number; cursor?: string } = {}): Promise<SqlResult> {
    return this.#transport.answer('POST', connectorPath(this.connectorId, '/sql'), {
      body: { query, ...options },
      safe: true,
    });
  }

  /** Every row of an SQL query, page after page (`meta.cursor`), as an async iterator. */
  async *sqlAll<Q extends string>(
    query: SqlText<K, Q>,
    options: { limit?: number } = {},
  ): AsyncGenerator<Record<string, unknown>> {
    let cursor: string | undefined;
    do {
      const page: SqlResult = await this.sql(query, cursor === undefined ? options : { ...options, cursor });
      yield* page.data;
      cursor = page.meta.has_more && page.meta.cursor ? page.meta.cursor : undefined;
    } while (cursor !== undefined);
  }

  /** Every record of a live `list`, page after page (the kind's own paging parameter), as an async iterator. */
  async *listAll<E extends T.PageableEntity<K>>(
    entity: E,
    params?: T.ParamsOf<K, E, 'list' & T.ActionName<K, E>>,
  ): AsyncGenerator<T.RecordOf<K, E>> {
    const paging = LIST_PAGING[this.connectorType]?.[entity];
    if (!paging) throw new TypeError(`${this.connectorType} ${entity} cannot be paged`);
    let current: Record<string, unknown> = { ...(params as Record<string, unknown> | undefined) };
    for (;;) {
      const page = (await this.#transport.json('POST', connectorPath(this.connectorId, '/execute'), {
        body: { entity, action: 'list', params: current },
        safe: true,
      })) as { data: T.RecordOf<K, E>[]; meta?: Record<string, unknown> };
      yield* page.data;
      const meta = page.meta ?? {};
      if (paging.type === 'token') {
        const next = meta[paging.meta];
        if (typeof next !== 'string' || next === '' || page.data.length === 0) return;
        current = { ...current, [paging.param]: next };
      } else {
        const pageNumber = typeof current[paging.param] === 'number' ? (current[paging.param] as number) : 1;
        const total = meta[paging.total];
        if (typeof total !== 'number' || pageNumber >= total || page.data.length === 0) return;
        current = { ...current, [paging.param]: pageNumber + 1 };
      }
    }
  }

  /** One page of the connector's change feed. */
  changesPage(options: Omit<ChangesOptions, 'follow'> = {}): Promise<ChangesPage> {
    return this.#transport.json('GET', `${connectorPath(this.connectorId, '/changes')}${changesQuery(options)}`, {
      safe: true,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  /**
   * Every change the copy applied, in order, as an async iterator; each event carries the `cursor` that resumes
   * after it. With `follow: true` it then waits for new changes until `signal` aborts.
   *
   * ```ts
   * for await (const change of orb.changes({ entity: 'customers', after: saved })) { handle(change); saved = change.cursor; }
   * ```
   */
  changes(options: ChangesOptions = {}): AsyncGenerator<ChangeEventAt> {
    return iterateChanges(this.#transport, connectorPath(this.connectorId, '/changes'), options);
  }

  /**
   * The changes the copy applies from now on (or after `after`), pushed by the server as they happen (Server-Sent
   * Events), until `signal` aborts; a dropped stream resumes after the last event handed out.
   *
   * ```ts
   * for await (const change of orb.follow({ after: 'latest', signal })) refresh(change.entity);
   * ```
   */
  follow(options: Pick<ChangesOptions, 'after' | 'entity' | 'signal'> = {}): AsyncGenerator<ChangeEventAt> {
    return followChanges(this.#transport, connectorPath(this.connectorId, '/changes'), options);
  }

  /** The connector with per-entity sync status. */
  get(): Promise<T.ConnectorView<K>> {
    return this.#transport.json('GET', connectorPath(this.connectorId), { safe: true });
  }

  sync(options: T.SyncOptions<T.SearchableEntity<K>> = {}): Promise<{ connector_id: string; entities: string[] }> {
    return this.#transport.json('POST', connectorPath(this.connectorId, '/sync'), { body: options, safe: false });
  }
}

function toDownload(response: Response): T.Download {
  const length = response.headers.get('content-length');
  return {
    status: response.status,
    body: response.body ?? new ReadableStream({ start: (c) => c.close() }),
    contentType: response.headers.get('content-type'),
    contentLength: length === null ? null : Number(length),
    contentDisposition: response.headers.get('content-disposition'),
    contentRange: response.headers.get('content-range'),
    headers: response.headers,
  };
}
