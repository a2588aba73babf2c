import { credentialsOAuth } from '../../core/auth.ts';
import type { EntityCatalog } from '../../core/catalog.ts';
import {
  type ContextOf,
  defineConnector,
  type EntityOperations,
  type Params,
  type ReadPage,
  type ReadRequest,
} from '../../core/define-connector.ts';
import { UpstreamError } from '../../core/errors.ts';
import { fillPath, type ListHooks, readListing } from '../../core/listing.ts';
import { snapchatMarketingCatalog } from './catalog.ts';
import { failureError, unwrapSnap } from './mapping.ts';

type SnapContext = ContextOf<typeof snapchatMarketingCatalog>;

/** Snap's own: the key of each wrapped object in a list of `plural` (`campaigns` → `campaign`). */
const SINGULAR: Readonly<Record<string, string>> = {
  organizations: 'organization',
  adaccounts: 'adaccount',
  campaigns: 'campaign',
  adsquads: 'adsquad',
  ads: 'ad',
  creatives: 'creative',
  media: 'media',
  segments: 'segment',
};

function unwrap(plural: string, body: unknown) {
  return unwrapSnap(body, plural, SINGULAR[plural] ?? plural);
}

/** Lists: the records that succeeded, and the failures in `meta.failures` (present only when there are some). */
const hooksOf = (plural: string): ListHooks => ({
  answer: (body) => {
    const page = unwrap(plural, body);
    return { records: page.records, ...(page.failures.length > 0 ? { meta: { failures: page.failures } } : {}) };
  },
});

const entityOf = (name: string): EntityCatalog => {
  const entity = snapchatMarketingCatalog.entities[name];
  if (!entity?.upstream) throw new Error(`snapchat-marketing: ${name} declares no upstream`);
  return entity;
};

/** The parent of each replicated collection: replication walks every parent when it is given none. */
const PARENT: Readonly<Record<string, { readonly param: string; readonly entity: string }>> = {
  adaccounts: { param: 'organization_id', entity: 'organizations' },
  ...Object.fromEntries(
    ['campaigns', 'adsquads', 'ads', 'creatives', 'media', 'segments'].map((n) => [
      n,
      { param: 'ad_account_id', entity: 'adaccounts' },
    ]),
  ),
};

function entity(name: string): EntityOperations<SnapContext> {
  const hooks = hooksOf(name);
  const operations: EntityOperations<SnapContext> = {
    hooks,
    read: (ctx, request) => readCollection(ctx, name, request),
  };
  if (entityOf(name).upstream?.get) {
    operations.get = async (ctx, params) => {
      const { path } = fillPath(entityOf(name).upstream!.get!.path, params);
      const page = unwrap(name, await ctx.http.json({ path, signal: ctx.signal }));
      if (page.failures.length > 0) throw failureError(name, page.failures);
      const record = page.records[0];
      if (!record)
        throw new UpstreamError(
          'upstream_not_found',
          `the upstream returned no ${SINGULAR[name]} ${String(params.id)}`,
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
async function* readCollection(ctx: SnapContext, name: string, request: ReadRequest): AsyncGenerator<ReadPage> {
  const parent = PARENT[name];
  const given = parent ? request.parentParams?.[parent.param] : undefined;
  if (!parent || (typeof given === 'string' && given !== '')) {
    yield* readOneParent(ctx, name, parent ? { [parent.param]: given } : {}, request.resume);
    return;
  }
  const resume = isWalkCheckpoint(request.resume) ? request.resume : null;
  const parents: string[] = [];
  for await (const page of readCollection(ctx, parent.entity, { since: request.since })) {
    parents.push(...page.records.map((r) => String(r.id)));
  }
  const from = resume ? parents.indexOf(resume.parent) : 0;
  for (let index = Math.max(0, from); index < parents.length; index++) {
    const id = parents[index]!;
    if (resume && index === from && resume.page === null) continue;
    const pageResume = resume && index === from ? resume.page : undefined;
    for await (const page of readOneParent(ctx, name, { [parent.param]: id }, pageResume)) {
      yield { records: page.records, checkpoint: { parent: id, page: page.checkpoint } };
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

/** Replication must not record a cursor past an object it could not read: a failure ends the read. */
function readOneParent(
  ctx: SnapContext,
  name: string,
  parentParams: Params,
  resume: unknown,
): AsyncGenerator<ReadPage> {
  const spec = entityOf(name).upstream!;
  const failuresEnd: ListHooks = {
    answer: (body) => {
      const page = unwrap(name, body);
      if (page.failures.length > 0) throw failureError(name, page.failures);
      return { records: page.records };
    },
  };
  return readListing(ctx, spec, { ...parentParams, ...spec.read?.params }, resume, failuresEnd);
}

export const snapchatMarketingConnector = defineConnector({
  catalog: snapchatMarketingCatalog,
  defaultBaseUrl: 'https://adsapi.snapchat.com/v1',
  // Rotated refresh tokens are stored.
  auth: ({ credentials, settings }) => credentialsOAuth(credentials, settings, snapchatMarketingCatalog.auth!),
  authAsData: {
    type: 'oauth2',
    grant: 'refresh_token',
    token_url: snapchatMarketingCatalog.auth!.tokenUrl,
    client_auth: snapchatMarketingCatalog.auth!.clientAuth,
  },
  entities: Object.fromEntries(Object.keys(SINGULAR).map((name) => [name, entity(name)])),
});
