import { bearerAuth } from '../../core/auth.ts';
import type { EntityCatalog } from '../../core/catalog.ts';
import { classifyWithWait, waitInBodyMs } from '../../core/classify.ts';
import {
  type ContextOf,
  defineConnector,
  type EntityOperations,
  type Params,
  type ReadPage,
} from '../../core/define-connector.ts';
import { ConnectorError } from '../../core/errors.ts';
import { readListing } from '../../core/listing.ts';
import { at } from '../../core/paging.ts';
import { sentryCatalog } from './catalog.ts';

type SentryContext = ContextOf<typeof sentryCatalog>;

const { projects, issues, events, releases } = sentryCatalog.entities;

/** Replication reads page through the entity's declared list, from `first`. */
function readList(ctx: SentryContext, entity: EntityCatalog | undefined, first: Params, resume: unknown) {
  if (!entity?.upstream) throw new Error(`sentry: ${entity?.name} declares no upstream`);
  return readListing(ctx, entity.upstream, first, resume);
}

/** The organization a replication read works in: the parent project's, else the connector's configuration. */
function organizationOf(ctx: SentryContext, parentParams: Params | undefined): string {
  const slug = parentParams?.organization_slug ?? ctx.config.organization_slug;
  if (typeof slug !== 'string' || slug === '') {
    throw new ConnectorError('invalid_request', 'replication needs the organization slug', [
      { path: '/parentParams/organization_slug', message: 'the parent project names no organization' },
    ]);
  }
  return slug;
}

/**
 * The organizations replication covers: the configured one, else every organization the token can see,
 * discovered with GET /api/0/organizations/.
 */
async function organizationsOf(ctx: SentryContext): Promise<string[]> {
  if (ctx.config.organization_slug) return [ctx.config.organization_slug];
  // GET /api/0/organizations/ (https://docs.sentry.io/api/organizations/list-your-organizations/): a bare array,
  // Link-paged like every Sentry list.
  const spec = { path: 'organizations/', records: null, paging: releases!.upstream!.paging };
  const slugs: string[] = [];
  for await (const page of readListing(ctx, spec, {}, undefined)) {
    for (const record of page.records) {
      const slug = record.slug;
      if (typeof slug === 'string' && slug !== '' && !slugs.includes(slug)) slugs.push(slug);
    }
  }
  return slugs.sort();
}

/** Where a read over several organizations resumes: which organization, and the position inside it. */
interface PerOrganizationCheckpoint {
  readonly organization: string;
  readonly inner: unknown;
}

/**
 * Runs `read` once per organization (organizationsOf, sorted by slug), in order; the checkpoint names the
 * organization, so an interrupted run resumes inside it and a new organization does not shift the others.
 */
async function* perOrganization(
  ctx: SentryContext,
  resume: unknown,
  read: (organization: string, resume: unknown) => AsyncIterable<ReadPage>,
): AsyncGenerator<ReadPage> {
  const organizations = await organizationsOf(ctx);
  const from = resume as PerOrganizationCheckpoint | undefined;
  const start = from ? Math.max(0, organizations.indexOf(from.organization)) : 0;
  for (let i = start; i < organizations.length; i++) {
    const organization = organizations[i]!;
    const inner = from && i === start && from.organization === organization ? from.inner : undefined;
    for await (const page of read(organization, inner)) {
      const next = organizations[i + 1];
      yield {
        records: page.records,
        checkpoint: page.checkpoint
          ? { organization, inner: page.checkpoint }
          : next === undefined
            ? null
            : { organization: next, inner: undefined },
      };
    }
  }
}

/** Projects of an organization's list name their organization (the list may omit it: it is the path's). */
async function* withOrganization(organization: string, pages: AsyncIterable<ReadPage>): AsyncGenerator<ReadPage> {
  for await (const page of pages) {
    yield {
      ...page,
      records: page.records.map((r) =>
        typeof at(r, 'organization.slug') === 'string' ? r : { ...r, organization: { slug: organization } },
      ),
    };
  }
}

/**
 * A per-project read (issues, events) of the entity's declared list: the parent project's params plus the filter
 * `since` (as ISO 8601) makes.
 */
function perProject(
  entity: EntityCatalog | undefined,
  filter: (since: string) => Params,
): EntityOperations<SentryContext> {
  return {
    read: (ctx, request) =>
      readList(
        ctx,
        entity,
        {
          organization_slug: organizationOf(ctx, request.parentParams),
          project_slug: String(request.parentParams?.project_slug ?? ''),
          ...filter(new Date(request.since).toISOString()),
        },
        request.resume,
      ),
  };
}

const organizationProjects = projects && {
  ...projects,
  upstream: { ...projects.upstream!, path: 'organizations/{organization_slug}/projects/' },
};

const projectsRead: EntityOperations<SentryContext> = {
  // Replication reads the projects of every organization it covers (organizationsOf; the parents of issues and
  // events, see the catalog): https://docs.sentry.io/api/organizations/list-an-organizations-projects/
  // Each record keeps (or gains) its `organization.slug`, the parent parameter of its issues and events.
  read: (ctx, request) =>
    perOrganization(ctx, request.resume, (organization, resume) =>
      withOrganization(organization, readList(ctx, organizationProjects, { organization_slug: organization }, resume)),
    ),
};

// Incremental by lastSeen. A non-empty query replaces the default `is:unresolved`, so every status comes back;
// `>=` (not `>`) keeps issues seen exactly at the cursor (writes are idempotent).
const issuesRead = perProject(issues, (since) => ({ query: `lastSeen:>=${since}`, statsPeriod: '' }));

// Incremental by dateCreated: `start` needs an `end`; the end is fixed when the run starts, so pages are stable.
const eventsRead = perProject(events, (since) => ({ full: 'true', start: since, end: new Date().toISOString() }));

/** Lists and gets are declared in the catalog; what is Sentry's own is where replication starts. */
export const sentryConnector = defineConnector({
  catalog: sentryCatalog,
  defaultBaseUrl: 'https://sentry.io/api/0',
  auth: ({ credentials }) => bearerAuth(credentials.auth_token),
  authAsData: { type: 'bearer' },
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
    // Every covered organization's releases (organizationsOf).
    releases: {
      read: (ctx, request) =>
        perOrganization(ctx, request.resume, (organization, resume) =>
          readList(ctx, releases, { organization_slug: organization }, resume),
        ),
    },
  },
});
