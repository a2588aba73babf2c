import { credentialsOAuth } from '../../core/auth.ts';
import {
  type ConnectorContext,
  defineConnector,
  type EntityOperations,
  type ListPage,
  type Params,
  type ReadPage,
  type ReadRequest,
} from '../../core/define-connector.ts';
import { UpstreamError } from '../../core/errors.ts';
import { pathOf } from '../../core/http-client.ts';
import { readByListing } from '../../core/paging.ts';
import { snapchatMarketingCatalog } from './catalog.ts';
import { failureError, unwrapSnap } from './mapping.ts';

/** OAuth refresh endpoint (https://developers.snap.com/api/marketing-api/Ads-API/authentication). */
export const SNAP_TOKEN_URL = 'https://accounts.snapchat.com/login/oauth2/access_token';

/** The catalog's credentials: refresh_token, client_id and client_secret required, access_token optional. */
interface SnapCredentials {
  access_token?: string;
  refresh_token: string;
  client_id: string;
  client_secret: string;
}

type SnapContext = ConnectorContext<SnapCredentials, Record<string, never>>;

/** Replication page size: Snap accepts `limit` 50–1000; large pages keep within ~10 req/s per token. */
const READ_PAGE_SIZE = 200;

interface Collection {
  /** Plural name used in paths and envelopes (`campaigns`). */
  readonly plural: string;
  /** Key of each wrapped object (`campaign`). */
  readonly singular: string;
  /** List path under the parent: (parent id) → path; null parent for `me/organizations`. */
  readonly listPath: (params: Params) => string;
  /** The param naming the parent (organization_id, ad_account_id), if any. */
  readonly parentParam?: string;
  /** The collection the parent ids come from, to walk all parents when replication names none. */
  readonly parent?: Collection;
  /** Whether a get-by-id exists (`/v1/{plural}/{id}`). */
  readonly gettable: boolean;
}

/**
 * A list page. The next page is Snap's absolute `paging.next_link` (it carries the cursor and limit); it is
 * followed as-is, and the HTTP client refuses it unless it stays on the API origin (DESIGN §6).
 */
async function listPage(
  ctx: SnapContext,
  collection: Collection,
  params: Params,
): Promise<ListPage & { failures: ReturnType<typeof unwrapSnap>['failures'] }> {
  const nextLink = typeof params.next_link === 'string' ? params.next_link : null;
  const query: Record<string, string | number | undefined> = {};
  if (!nextLink) {
    if (params.limit !== undefined) query.limit = Number(params.limit);
    if (typeof params.cursor === 'string') query.cursor = params.cursor;
  }
  const body = await ctx.http.json({ path: nextLink ?? collection.listPath(params), query, signal: ctx.signal });
  const page = unwrapSnap(body, collection.plural, collection.singular);
  const meta: Record<string, unknown> = { next_link: page.nextLink };
  if (page.failures.length > 0) meta.failures = page.failures;
  return {
    records: page.records,
    meta,
    next: page.nextLink ? { ...params, next_link: page.nextLink } : null,
    failures: page.failures,
  };
}

function entity(collection: Collection): EntityOperations<SnapContext> {
  const operations: EntityOperations<SnapContext> = {
    list: async (ctx, params) => {
      const { records, meta, next } = await listPage(ctx, collection, params);
      return { records, meta, next };
    },
    read: (ctx, request) => readCollection(ctx, collection, request),
  };
  if (collection.gettable) {
    operations.get = async (ctx, params) => {
      const body = await ctx.http.json({ path: pathOf(collection.plural, String(params.id)), signal: ctx.signal });
      const page = unwrapSnap(body, collection.plural, collection.singular);
      if (page.failures.length > 0) throw failureError(collection.plural, page.failures);
      const record = page.records[0];
      if (!record)
        throw new UpstreamError(
          'upstream_not_found',
          `the upstream returned no ${collection.singular} ${String(params.id)}`,
          200,
          null,
        );
      return record;
    };
  }
  return operations;
}

/**
 * Replication: Snap lists cannot be filtered or ordered by `updated_at` upstream, and the catalog replicates every
 * entity as full_refresh, so a run reads the whole collection and `since` is not applied: filtering it client-side
 * would drop organizations and ad accounts last updated before start_date, and with them (the worker enumerates
 * parents through this read) every campaign, ad, creative... below them.
 *
 * With parentParams, one parent's list is read and the checkpoint is the next page's link. Without them (the worker
 * enumerates the parents of campaigns by reading adaccounts with no parent), every parent is walked in turn and the
 * checkpoint is `{parent, page}`: the parent being read and its next page (null once that parent is done).
 */
async function* readCollection(
  ctx: SnapContext,
  collection: Collection,
  request: ReadRequest,
): AsyncGenerator<ReadPage> {
  const param = collection.parentParam;
  const given = param ? request.parentParams?.[param] : undefined;
  if (!param || !collection.parent || (typeof given === 'string' && given !== '')) {
    yield* readOneParent(ctx, collection, param ? { [param]: given } : {}, request.resume);
    return;
  }
  const resume = isWalkCheckpoint(request.resume) ? request.resume : null;
  const parents: string[] = [];
  for await (const page of readCollection(ctx, collection.parent, { since: request.since })) {
    parents.push(...page.records.map((r) => String(r.id)));
  }
  const from = resume ? parents.indexOf(resume.parent) : 0;
  for (let index = Math.max(0, from); index < parents.length; index++) {
    const parent = parents[index]!;
    if (resume && index === from && resume.page === null) continue;
    const pageResume = resume && index === from ? resume.page : undefined;
    for await (const page of readOneParent(ctx, collection, { [param]: parent }, pageResume)) {
      yield { records: page.records, checkpoint: { parent, page: page.checkpoint } };
    }
  }
}

interface WalkCheckpoint {
  readonly parent: string;
  readonly page: unknown;
}

function isWalkCheckpoint(value: unknown): value is WalkCheckpoint {
  return typeof value === 'object' && value !== null && typeof (value as { parent?: unknown }).parent === 'string';
}

function readOneParent(
  ctx: SnapContext,
  collection: Collection,
  parentParams: Params,
  resume: unknown,
): AsyncGenerator<ReadPage> {
  return readByListing(
    async (params) => {
      const page = await listPage(ctx, collection, params);
      if (page.failures.length > 0) throw failureError(collection.plural, page.failures);
      return page;
    },
    { ...parentParams, limit: READ_PAGE_SIZE },
    resume,
  );
}

const organizations: Collection = {
  plural: 'organizations',
  singular: 'organization',
  listPath: () => 'me/organizations',
  gettable: true,
};
const adaccounts: Collection = {
  plural: 'adaccounts',
  singular: 'adaccount',
  parentParam: 'organization_id',
  parent: organizations,
  listPath: (params) => pathOf('organizations', String(params.organization_id), 'adaccounts'),
  gettable: true,
};

const adAccountChild = (plural: string, singular: string, gettable = true): Collection => ({
  plural,
  singular,
  parentParam: 'ad_account_id',
  parent: adaccounts,
  listPath: (params) => pathOf('adaccounts', String(params.ad_account_id), plural),
  gettable,
});

export const snapchatMarketingConnector = defineConnector({
  catalog: snapchatMarketingCatalog,
  defaultBaseUrl: 'https://adsapi.snapchat.com/v1',
  // Form-encoded client authentication at the token endpoint; rotated refresh tokens are stored.
  auth: ({ credentials, settings }) =>
    credentialsOAuth(credentials as SnapCredentials, settings, { tokenUrl: SNAP_TOKEN_URL, clientAuth: 'form' }),
  entities: {
    organizations: entity(organizations),
    adaccounts: entity(adaccounts),
    campaigns: entity(adAccountChild('campaigns', 'campaign')),
    adsquads: entity(adAccountChild('adsquads', 'adsquad')),
    ads: entity(adAccountChild('ads', 'ad')),
    creatives: entity(adAccountChild('creatives', 'creative')),
    media: entity(adAccountChild('media', 'media')),
    segments: entity(adAccountChild('segments', 'segment')),
  },
});
