import { bearerAuth } from '../../core/auth.ts';
import type { EntityCatalog } from '../../core/catalog.ts';
import { classifyWithWait, waitInBodyMs } from '../../core/classify.ts';
import {
  type ContextOf,
  defineConnector,
  type EntityOperations,
  type Params,
  type ReadRequest,
} from '../../core/define-connector.ts';
import { ConnectorError } from '../../core/errors.ts';
import { listDeclared } from '../../core/listing.ts';
import { readByListing } from '../../core/paging.ts';
import { sentryCatalog } from './catalog.ts';

type SentryContext = ContextOf<typeof sentryCatalog>;

const { projects, issues, events, releases } = sentryCatalog.entities;

/** Replication reads page through the entity's declared list, from `first`. */
function readList(ctx: SentryContext, entity: EntityCatalog | undefined, first: Params, request: ReadRequest) {
  if (!entity?.upstream) throw new Error(`sentry: ${entity?.name} declares no upstream`);
  const spec = entity.upstream;
  return readByListing((p) => listDeclared(ctx, spec, p), first, request.resume);
}

/** The organization a replication read works in: the parent's, else the connector's configuration. */
function organizationOf(ctx: SentryContext, request: ReadRequest): string {
  const slug = request.parentParams?.organization_slug ?? ctx.config.organization_slug;
  if (typeof slug !== 'string' || slug === '') {
    throw new ConnectorError('invalid_request', 'replication needs the organization slug', [
      { path: '/config/organization_slug', message: 'is required to replicate this entity' },
    ]);
  }
  return slug;
}

/** The parent project of a per-project read (issues, events). */
function projectOf(ctx: SentryContext, request: ReadRequest): Params {
  return {
    organization_slug: organizationOf(ctx, request),
    project_slug: String(request.parentParams?.project_slug ?? ''),
  };
}

const projectsRead: EntityOperations<SentryContext> = {
  // Replication reads the configured organization's projects (the parents of its issues and events, see the
  // catalog): https://docs.sentry.io/api/organizations/list-an-organizations-projects/
  read: (ctx, request) => {
    const slug = ctx.config.organization_slug;
    if (!slug) return readList(ctx, projects, {}, request);
    const organizationProjects = {
      ...projects!,
      upstream: { ...projects!.upstream!, path: 'organizations/{organization_slug}/projects/' },
    };
    return readList(ctx, organizationProjects, { organization_slug: slug }, request);
  },
};

const issuesRead: EntityOperations<SentryContext> = {
  // Incremental by lastSeen. A non-empty query replaces the default `is:unresolved`, so every status comes back;
  // `>=` (not `>`) keeps issues seen exactly at the cursor (writes are idempotent).
  read: (ctx, request) =>
    readList(
      ctx,
      issues,
      {
        ...projectOf(ctx, request),
        query: `lastSeen:>=${new Date(request.since).toISOString()}`,
        statsPeriod: '',
      },
      request,
    ),
};

const eventsRead: EntityOperations<SentryContext> = {
  // Incremental by dateCreated: `start` needs an `end`; the end is fixed when the run starts, so pages are stable.
  read: (ctx, request) =>
    readList(
      ctx,
      events,
      {
        ...projectOf(ctx, request),
        full: 'true',
        start: new Date(request.since).toISOString(),
        end: new Date().toISOString(),
      },
      request,
    ),
};

/** Lists and gets are declared in the catalog; what is Sentry's own is where replication starts. */
export const sentryConnector = defineConnector({
  catalog: sentryCatalog,
  defaultBaseUrl: 'https://sentry.io/api/0',
  auth: ({ credentials }) => bearerAuth(credentials.auth_token),
  // https://docs.sentry.io/api/ratelimits/: X-Sentry-Rate-Limit-Reset is the epoch second the window reopens; a
  // throttled answer also says "Expected available in N seconds".
  classify: classifyWithWait((response, excerpt) => {
    const reset = Number(response.headers.get('x-sentry-rate-limit-reset') ?? Number.NaN);
    if (Number.isFinite(reset)) return Math.max(0, reset * 1000 - Date.now());
    return waitInBodyMs(excerpt, /Expected available in (\d+) seconds?/);
  }),
  entities: {
    projects: projectsRead,
    issues: issuesRead,
    events: eventsRead,
    releases: {
      read: (ctx, request) => readList(ctx, releases, { organization_slug: organizationOf(ctx, request) }, request),
    },
  },
});
