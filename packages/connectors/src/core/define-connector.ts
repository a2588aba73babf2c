import type { DefinedAuth } from '../definitions/definition-format.ts';
import type { TokenCache } from './auth.ts';
import type { KindCatalog } from './catalog.ts';
import type { Classify } from './classify.ts';
import type { AuthStrategy, UpstreamBudgetGate, UpstreamHttpClient } from './http-client.ts';
import type { ListHooks } from './listing.ts';
import type { RetryPolicy } from './retry-policy.ts';

export type UpstreamRecord = Record<string, unknown>;
export type Params = Record<string, unknown>;

/** One page of a live list: the records, the specification's Meta values, and the params of the next page (null at the end). */
export interface ListPage {
  readonly records: UpstreamRecord[];
  readonly meta: Record<string, unknown>;
  readonly next: Params | null;
}

export interface DownloadResult {
  readonly status: number;
  readonly headers: Headers;
  readonly body: ReadableStream<Uint8Array>;
}

/** What replication asks for: records from `since` (start_date or the incremental cursor), maybe under a parent. */
export interface ReadRequest {
  readonly since: string;
  /** Params identifying the parent record for child entities (form_id, project_slug, ...). */
  readonly parentParams?: Params;
  /** The checkpoint of an interrupted run of the same read: continue after it. */
  readonly resume?: unknown;
  /**
   * Entities whose cursor is a changes-feed position (ChangeCapture.cursor `feed`): where the last run ended
   * (its last ReadPage.position). Absent: read everything from `since` (a first or full pass).
   */
  readonly position?: string;
}

/** One page read for replication, and the checkpoint that resumes right after it. */
export interface ReadPage {
  readonly records: UpstreamRecord[];
  readonly checkpoint: unknown;
  /** Record keys the upstream reports gone (a changes feed's removals): removed from the copy. */
  readonly removed?: readonly string[];
  /** Changes-feed entities: the position the next incremental run starts from (set on the last page). */
  readonly position?: string;
}

export interface ConnectorContext<Credentials = unknown, Config = unknown> {
  readonly http: UpstreamHttpClient;
  readonly credentials: Credentials;
  readonly config: Config;
  readonly signal?: AbortSignal | undefined;
}

/** The context a kind's code gets, typed by its catalog's schemas (z.infer of credentials and config). */
export type ContextOf<K> =
  K extends KindCatalog<infer Credentials, infer Config> ? ConnectorContext<Credentials, Config> : never;

/** The HTTP side of one entity; params arrive validated against the catalog (sync may add internal ones). */
export interface EntityOperations<Ctx extends ConnectorContext = ConnectorContext> {
  list?(ctx: Ctx, params: Params): Promise<ListPage>;
  get?(ctx: Ctx, params: Params): Promise<UpstreamRecord>;
  create?(ctx: Ctx, params: Params): Promise<unknown>;
  update?(ctx: Ctx, params: Params): Promise<unknown>;
  delete?(ctx: Ctx, params: Params): Promise<unknown>;
  download?(ctx: Ctx, params: Params): Promise<DownloadResult>;
  /** Replication read; entities that are searchable must have one. */
  read?(ctx: Ctx, request: ReadRequest): AsyncIterable<ReadPage>;
  /**
   * Vendor-side deduplication of a write: the (validated) params to send so that sending them twice makes one
   * record, e.g. Drive's create with an id from files/generateIds. Called once per Idempotency-Key; what it returns
   * is kept with the key, so a retry after a crash sends the very same params.
   */
  prepare?(ctx: Ctx, action: string, params: Params): Promise<Params>;
  /** For an entity declared in the catalog (`upstream`): what the kind adds to the core's list and read. */
  hooks?: ListHooks;
}

/** Where a connector instance sends its calls and how it behaves; the hosting process decides. */
export interface ConnectorSettings {
  /** Overrides the kind's upstream base (CONNECTOR_BASE_URL_<KIND>); may contain `{subdomain}`. */
  readonly baseUrl?: string | undefined;
  /** Overrides the OAuth token endpoint (CONNECTOR_TOKEN_URL_<KIND>). */
  readonly tokenUrl?: string | undefined;
  readonly fetch?: typeof fetch;
  readonly retry?: RetryPolicy;
  readonly timeoutMs?: number;
  readonly tokenCache?: TokenCache;
  /** The connector's upstream budget (the platform's, shared through Redis); none: no pacing. */
  readonly budget?: UpstreamBudgetGate;
  /** Called after every upstream attempt with its status (null: unreachable); the platform counts them. */
  readonly onUpstreamResponse?: (status: number | null) => void;
  /** Rotated OAuth credentials, to be stored with the connector. */
  readonly onCredentialsRotated?: (credentials: Record<string, unknown>) => Promise<void> | void;
}

export interface AuthFactoryInput<Credentials, Config> {
  readonly credentials: Credentials;
  readonly config: Config;
  readonly settings: ConnectorSettings;
  readonly tokenCache: TokenCache;
}

export interface ConnectorDefinition<Credentials = unknown, Config = unknown> {
  /** The kind's catalog; Credentials and Config are inferred from its schemas. */
  readonly catalog: KindCatalog<Credentials, Config>;
  /** The real vendor base (docs/api.md); `{subdomain}` is filled from config. */
  readonly defaultBaseUrl: string;
  readonly defaultHeaders?: (input: { credentials: Credentials; config: Config }) => Record<string, string>;
  readonly auth: (input: AuthFactoryInput<Credentials, Config>) => AuthStrategy;
  /**
   * How the kind authenticates, said as data in the definition format (docs/definitions.md), where the `auth`
   * function above can be said so: the kind's export as a definition carries it.
   */
  readonly authAsData?: DefinedAuth | readonly DefinedAuth[];
  /** The kind's reading of upstream error answers; the HTTP client's one retry loop acts on it. */
  readonly classify?: Classify;
  /** A kind's own operations; an entity the catalog declares (`upstream`) gets the core's for what is left out. */
  readonly entities: Readonly<
    Record<string, EntityOperations<ConnectorContext<NoInfer<Credentials>, NoInfer<Config>>>>
  >;
}

/** Typed identity helper, so a kind's file reads as a declaration. */
export function defineConnector<Credentials, Config>(
  definition: ConnectorDefinition<Credentials, Config>,
): ConnectorDefinition<Credentials, Config> {
  return definition;
}
