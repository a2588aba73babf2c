import type { z } from 'zod';
import type { FieldMap } from './field-spec.ts';
import type { TokenClientAuth } from './token-endpoint.ts';
import type { WebhookScheme } from './webhook-scheme.ts';

export const ACTIONS = ['list', 'get', 'search', 'create', 'update', 'delete', 'download'] as const;
export type ActionName = (typeof ACTIONS)[number];
export type LiveActionName = Exclude<ActionName, 'search'>;

/** Parameters of one live action: a strict zod object, so unknown params are reported, not ignored. */
export type ParamsSchema = z.ZodObject<z.ZodRawShape>;

/**
 * How replication reads an entity.
 * - `incremental`: the upstream can filter or order by `cursorField`; runs resume from the highest value seen.
 * - `full_refresh`: every run reads everything and removes what disappeared upstream.
 * `parent`: the entity is read once per record of another entity (responses per form, issues per project):
 * `params[param] = parentRecord[from]`, plus `params[p] = parentRecord[extra[p]]` for each further parameter
 * (Sentry issues need the project's organization too).
 */
export interface SyncSpec {
  readonly mode: 'incremental' | 'full_refresh';
  readonly cursorField?: string;
  readonly parent?: {
    readonly entity: string;
    readonly param: string;
    readonly from: string;
    readonly extra?: Readonly<Record<string, string>>;
  };
}

/**
 * What the upstream lets an entity's incremental reads see (docs/architecture.md). The sync engine derives its
 * behaviour from it: incremental runs re-read `lookbackMs` behind the cursor, and an entity whose incremental
 * reads miss edits or deletions gets a full pass (re-read from start_date, then removal of what disappeared) at
 * least every FULL_SYNC_INTERVAL. Full-refresh entities see everything on every run and need none.
 */
export interface ChangeCapture {
  /** An edit upstream moves the cursor (an "updated since" filter or a changes feed); false for creation-time cursors. */
  readonly seesEdits: boolean;
  /** A deletion upstream reaches incremental reads (a changes feed), or the upstream cannot delete the records. */
  readonly seesDeletions: boolean;
  /** The vendor's documented delay before a record appears in its list (0 when none is documented). */
  readonly lookbackMs: number;
  /** `feed`: the cursor is a position in the upstream's changes feed (ReadPage.position), not a record field. */
  readonly cursor: 'field' | 'feed';
  /** Where these facts come from (vendor documentation, vendor's API reference). */
  readonly source: string;
}

/**
 * How the next page of a list is asked for, keyed on `type`. `param` is the list param that carries the next-page
 * value back (a caller may pass it: it is in the list's params schema); `meta` names that value in the answer's
 * Meta (default: `param`). Dotted paths (`nextAt`, ...) point into the upstream's JSON answer.
 */
export type Paging =
  /** One answer holds the whole list. */
  | { readonly type: 'none' }
  /**
   * An opaque cursor at `nextAt`, sent back as `param` (Orb, incident.io). With `hasMoreAt`, only while that flag is
   * true; with `stopOnEmpty`, an empty page ends the walk even if a cursor came back.
   */
  | {
      readonly type: 'cursor';
      readonly param: string;
      readonly nextAt: string;
      readonly meta?: string;
      readonly hasMoreAt?: string;
      readonly stopOnEmpty?: boolean;
    }
  /** A page token at `nextAt` sent back as `param` (Drive nextPageToken, PayPal next_id → start_id). */
  | { readonly type: 'page_token'; readonly param: string; readonly nextAt: string; readonly meta?: string }
  /**
   * Numbered pages from 1: the next page exists while `param` < the count at `totalPagesAt` (PayPal, Typeform).
   * `stopOnEmpty`: an empty page ends the walk.
   */
  | {
      readonly type: 'page_number';
      readonly param: string;
      readonly totalPagesAt: string;
      readonly stopOnEmpty?: boolean;
    }
  /**
   * Offsets: `param` is the index of the first record, `limitParam` the page size (`limit` when the caller gives
   * none); the next page exists while a page comes back full.
   */
  | { readonly type: 'offset'; readonly param: string; readonly limitParam: string; readonly limit: number }
  /**
   * An RFC 8288 `Link` header with rel="next": its `cursor` attribute (Sentry, which also says `results="false"` when
   * there is no such page), else the `param` query value of its URL.
   */
  | { readonly type: 'link_header'; readonly param: string; readonly meta?: string }
  /**
   * The absolute URL of the next page at `nextAt` (Zendesk next_page, Snap paging.next_link), passed back as
   * `param` and followed as-is: only on the upstream's origin and on this list's own path. With `fullPage`, the URL
   * counts only after a full page: the count at `countAt` (else the number of records) reaches `size` (Zendesk's
   * incremental exports always hand out a next URL; a shorter page means the export has caught up).
   */
  | {
      readonly type: 'next_url';
      readonly param: string;
      readonly nextAt: string;
      readonly meta?: string;
      readonly fullPage?: { readonly countAt: string; readonly size: number };
    }
  /**
   * Keyset paging: the next page continues from the last record of this one, its `field` sent as `param` (Typeform
   * responses' `token` → `after`). An empty page ends the walk, and so does a count of 1 or less at `pagesAt` (the
   * pages left, this one included). The value is not part of Meta: the records carry it.
   */
  | {
      readonly type: 'last_record';
      readonly param: string;
      readonly field: string;
      readonly pagesAt?: string;
      readonly meta?: never;
    }
  /**
   * Hypermedia links in the answer: an array at `linksAt` of `{rel, href}`; the next page's value is the `param`
   * query value of the rel="next" href, sent back as `param` (PayPal disputes' next_page_token).
   */
  | { readonly type: 'body_link'; readonly param: string; readonly linksAt: string; readonly meta?: string };

/** A since filter of replication: the list param that receives `since`, and the form the upstream wants. */
export interface SinceParam {
  readonly param: string;
  /** `as_is`: the stored value; `iso`: ISO 8601 with milliseconds; `seconds`: ISO 8601 to the second; `day`: YYYY-MM-DD. */
  readonly format: 'as_is' | 'iso' | 'seconds' | 'day';
}

/**
 * Where an entity lives upstream, as data: the core runs its list, get and replication read from this. Paths are
 * relative to the kind's base; `{name}` is filled (escaped) from the param `name`, which then stays out of the query.
 */
export interface UpstreamSpec {
  readonly path: string;
  /**
   * Where the records sit in a list answer: a dotted path, or null for a bare array; `{ object }` when the answer is
   * one record (at that dotted path, or the whole answer for null: PayPal's account balances).
   */
  readonly records: string | null | { readonly object: string | null };
  readonly paging: Paging;
  /** Meta values besides the next-page value: Meta name → dotted path in the answer (missing → null). */
  readonly meta?: Readonly<Record<string, string>>;
  /**
   * Record fields the catalog names otherwise than the vendor: catalog name → the vendor's field, copied when the
   * record lacks the catalog's name (incident.io's `slack_channel_id` is the catalog's `chat_channel_id`). The
   * vendor's field stays as it came.
   */
  readonly aliases?: Readonly<Record<string, string>>;
  /** List params sent under another name upstream (Orb's `created_at_gte` → `created_at[gte]`). */
  readonly query?: Readonly<Record<string, string>>;
  /** Query values every list call sends (PayPal's `total_required=true`, without which no page count comes back). */
  readonly constantQuery?: Readonly<Record<string, string>>;
  /**
   * Get by id: its path, where the record sits in the answer (absent: the answer is the record), and query values
   * sent unless the caller gives its own (Drive's `fields=*`).
   */
  readonly get?: {
    readonly path: string;
    readonly record?: string;
    readonly defaults?: Readonly<Record<string, string>>;
  };
  /** Replication: the first page's params (largest page size...) and the since filter, if the upstream has one. */
  readonly read?: { readonly params?: Readonly<Record<string, unknown>>; readonly since?: SinceParam };
}

/** One entity of a connector kind, as the catalog describes it. Pure data: no HTTP here. */
export interface EntityCatalog {
  readonly name: string;
  /** Dotted path to the field that identifies a record (document ids derive from it). */
  readonly recordKey: string;
  /** Where the entity lives upstream and how its lists page (absent: the kind's connector.ts codes it). */
  readonly upstream?: UpstreamSpec;
  /** Record fields with their types and nullability. */
  readonly record: FieldMap;
  /** Pagination values a list returns (the catalog's "Meta"). */
  readonly meta?: FieldMap;
  /** Searchable fields (dotted where listed). Present exactly when the entity supports `search`. */
  readonly searchable?: FieldMap;
  /**
   * The searchable string fields that carry meaning (a subject, a summary, a note): their text is embedded for
   * search by meaning (`query.semantic`, docs/search.md). Absent: the entity is searched by words only.
   */
  readonly embed?: readonly string[];
  /** Live actions and their parameter schemas. */
  readonly actions: { readonly [A in LiveActionName]?: ParamsSchema };
  /** Present exactly when the entity is searchable: how the worker replicates it. */
  readonly sync?: SyncSpec;
  /** Present for every incremental entity (and where a full-refresh entity has a documented delay). */
  readonly changeCapture?: ChangeCapture;
  /**
   * The replicated entity whose records this entity's create/update/delete write, when it is another one
   * (Drive files_upload creates `files` records). Read-your-writes re-reads the written record there.
   */
  readonly writesTo?: string;
}

export interface KindCatalog<Credentials = unknown, Config = unknown> {
  /** Canonical connector_type (docs/api.md), e.g. `Zendesk-Talk`. */
  readonly connectorType: string;
  /** The purpose name the catalog uses, e.g. `telephony`. */
  readonly purpose: string;
  /** Credentials: a union over the credential methods the kind accepts; the connector's types are inferred from it. */
  readonly credentials: z.ZodType<Credentials>;
  readonly replicationConfig: z.ZodType;
  /** Connector configuration variables (telephony: subdomain); an empty strict object when there are none. */
  readonly config: z.ZodType<Config>;
  /**
   * The vendor's OAuth endpoints, for kinds that refresh or obtain tokens: the connector's refresh and the
   * platform's consent flow both read them here. Absent for kinds that take API keys only.
   */
  readonly auth?: AuthSpec;
  /** How the vendor signs its webhooks and what its events name; absent for kinds without webhooks (docs/api.md). */
  readonly webhooks?: WebhookScheme;
  /** What orders two writes of one of the kind's records in the copy, and why (docs/changes.md). */
  readonly copyVersion: CopyVersion;
  /** The vendor's documented request rate for one connector's credentials: what its upstream budget allows. */
  readonly rateLimit: RateLimitSpec;
  readonly entities: Readonly<Record<string, EntityCatalog>>;
}

/**
 * A kind's OAuth 2.0 facts, stated once. URLs may hold `{subdomain}`: fillUrl fills it from the connector's
 * config (validated against SUBDOMAIN_PATTERN), and CONNECTOR_TOKEN_URL_<KIND> / OAUTH_AUTHORIZE_URL_<KIND>
 * may override them (docs/operations.md).
 */
export interface AuthSpec {
  /** The token endpoint: refreshes, client-credentials grants and the consent flow's code exchange. */
  readonly tokenUrl: string;
  /** How the client authenticates at the token endpoint: form fields or HTTP Basic (RFC 6749 §2.3.1). */
  readonly clientAuth: TokenClientAuth;
  /** The authorization-code consent flow, where the vendor offers one. */
  readonly consent?: ConsentSpec;
}

/** The vendor's authorization-code flow (the platform's OAuth consent, docs/api.md). */
export interface ConsentSpec {
  readonly authorizeUrl: string;
  readonly scopes: readonly string[];
  /** Proof Key for Code Exchange (RFC 7636, S256) where the vendor documents it. */
  readonly pkce: boolean;
  /** Extra authorize parameters, e.g. Google's access_type=offline to receive a refresh token. */
  readonly authorizeParams: Readonly<Record<string, string>>;
  /** Credential fields of a connector the consent flow creates, and where each comes from. */
  readonly credentials: Readonly<Record<string, CredentialSource>>;
}

/**
 * Where one credential field of a connector created by the OAuth consent flow comes from:
 * the provider's token response, the platform's OAuth client, or a platform-wide secret in the environment
 * (`OAUTH_<name>_<KIND>`, e.g. Google Ads' developer token).
 */
export type CredentialSource =
  | { readonly from: 'token'; readonly field: 'access_token' | 'refresh_token' }
  | { readonly from: 'client'; readonly field: 'client_id' | 'client_secret' }
  | { readonly from: 'env'; readonly name: string };

/** access_token + refresh_token + the client that refreshes them: what every refreshing connector stores. */
export const REFRESHING_CREDENTIALS = {
  access_token: { from: 'token', field: 'access_token' },
  refresh_token: { from: 'token', field: 'refresh_token' },
  client_id: { from: 'client', field: 'client_id' },
  client_secret: { from: 'client', field: 'client_secret' },
} as const satisfies Readonly<Record<string, CredentialSource>>;

/**
 * The version a write to the copy carries (docs/changes.md): `read_instant`, when its upstream read began, or
 * `vendor`, a record version of the vendor's own that moves on every change and that every read returns. A
 * removal (a re-read's 404, a full pass not finding the record, a changes feed's removal) carries no vendor
 * version, so one order covering records and removals alike needs the read instant unless the vendor's version
 * can be compared with it.
 */
export interface CopyVersion {
  readonly by: 'read_instant' | 'vendor';
  /** Why this one, for this vendor. */
  readonly why: string;
  /** The vendor's documentation the reason rests on. */
  readonly source: string;
}

/**
 * A kind's documented rate limit. `perSecond: null`: the vendor publishes none (or none in requests), so the
 * budget learns it from the upstream's 429s and Retry-After (docs/trusted-calls.md).
 */
export interface RateLimitSpec {
  readonly perSecond: number | null;
  /** What the limit applies to and how the vendor states it, e.g. "per API key: 1,200 requests per minute". */
  readonly scope: string;
  /** The vendor's page that says so. */
  readonly source: string;
}

/** Typed identity: keeps the credential and config types of the schemas, so a kind's code infers them (z.infer). */
export function defineCatalog<Credentials, Config>(
  catalog: KindCatalog<Credentials, Config>,
): KindCatalog<Credentials, Config> {
  return catalog;
}

/**
 * Change capture through a record field (`cursor: 'field'`): what incremental reads see, the vendor's documented
 * delay (none unless given) and where these facts come from.
 */
export function fieldCursor(
  sees: Pick<ChangeCapture, 'seesEdits' | 'seesDeletions'> & { readonly lookbackMs?: number },
  source: string,
): ChangeCapture {
  return {
    seesEdits: sees.seesEdits,
    seesDeletions: sees.seesDeletions,
    lookbackMs: sees.lookbackMs ?? 0,
    cursor: 'field',
    source,
  };
}

/** An upstream list answered whole in one response, its records at `records` (a dotted path, null: a bare array). */
export function unpaged(path: string, records: UpstreamSpec['records']): UpstreamSpec {
  return { path, records, paging: { type: 'none' } };
}

/** What an entity states of its own: entity() fills in what most entities share. */
export type EntityDeclaration = Omit<EntityCatalog, 'recordKey' | 'searchable'> & {
  /** Default `id`. */
  readonly recordKey?: string;
  /** Default: every record field, when the entity is replicated (`sync`); none otherwise. */
  readonly searchable?: FieldMap;
};

/**
 * An entity as most are: keyed by `id`, and searchable on every record field once replicated (searchable and sync go
 * together), so that a catalog states only where an entity differs.
 */
export function entity(declaration: EntityDeclaration): EntityCatalog {
  const { recordKey = 'id', searchable = declaration.sync ? declaration.record : undefined, ...rest } = declaration;
  return { ...rest, recordKey, ...(searchable ? { searchable } : {}) };
}

const HOUR_MS = 3_600_000;
/** Durations for `ChangeCapture.lookbackMs`, so catalogs read as the vendors' documents do. */
export const hours = (n: number): number => n * HOUR_MS;

/**
 * Whether incremental runs of the entity can miss upstream changes, so that periodic full passes are needed.
 * Full-refresh entities never do (every run is a full pass); an incremental entity without declared change capture
 * is assumed to miss both.
 */
export function needsFullPasses(entity: EntityCatalog): boolean {
  if (entity.sync?.mode !== 'incremental') return false;
  const capture = entity.changeCapture;
  return !(capture?.seesEdits && capture.seesDeletions);
}

/**
 * Searchable fields whose dotted name is one literal key of the record (Sentry events' `event.type`) rather than
 * a path into an object: results keep them under that name.
 */
export function literalDottedFields(entity: EntityCatalog): string[] {
  return Object.keys(entity.searchable ?? {}).filter(
    (name) => name.includes('.') && Object.hasOwn(entity.record, name),
  );
}

export function entityActions(entity: EntityCatalog): ActionName[] {
  const live = Object.keys(entity.actions) as LiveActionName[];
  return entity.searchable ? [...live, 'search'] : live;
}

/**
 * The entity named `name`, looked up as data: names like `toString` or `__proto__` are not entities
 * (a plain `entities[name]` would return Object.prototype members).
 */
export function entityOf(catalog: KindCatalog, name: string): EntityCatalog | undefined {
  return Object.hasOwn(catalog.entities, name) ? catalog.entities[name] : undefined;
}

/** The params schema of `entity`'s live `action`; throws when the catalog declares none (tests and tools). */
export function actionParams(entities: KindCatalog['entities'], entity: string, action: LiveActionName): ParamsSchema {
  const schema = Object.hasOwn(entities, entity) ? entities[entity]?.actions[action] : undefined;
  if (!schema) throw new Error(`${entity} has no ${action}`);
  return schema;
}
