import { bearerAuth } from '../../core/auth.ts';
import {
  type ConnectorContext,
  defineConnector,
  type EntityOperations,
  type ListPage,
  type Params,
  type ReadRequest,
} from '../../core/define-connector.ts';
import { ConnectorError } from '../../core/errors.ts';
import { pathOf } from '../../core/http-client.ts';
import { readByListing } from '../../core/paging.ts';
import { sentryCatalog } from './catalog.ts';
import { fetchSentryPage, queryOf } from './link-paging.ts';

interface SentryCredentials {
  readonly auth_token: string;
}

interface SentryConfig {
  readonly organization_slug?: string | undefined;
}

type SentryContext = ConnectorContext<SentryCredentials, SentryConfig>;

/** Builds the path (trailing slash: Sentry's canonical URLs end with one) from escaped segments. */
function sentryPath(...segments: string[]): string {
  return `${pathOf(...segments)}/`;
}

/** A Sentry list: bare array + Link-header cursor; `next` carries the cursor of the next page. */
function linkList(path: (params: Params) => string, pathParams: readonly string[]) {
  return async (ctx: SentryContext, params: Params): Promise<ListPage> => {
    const page = await fetchSentryPage(ctx.http, path(params), queryOf(params, pathParams), ctx.signal);
    return {
      records: page.records,
      meta: { next_cursor: page.nextCursor },
      next: page.nextCursor ? { ...params, cursor: page.nextCursor } : null,
    };
  };
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

/**
 * A path parameter. `pathOf` escapes `/`, but `.` and `..` (even as %2E%2E) stay dot segments that URL
 * resolution would apply (`releases/..` is the organization), so they are refused (versions are free text).
 */
function s(params: Params, name: string): string {
  const value = String(params[name]);
  if (/^(\.|%2e){1,2}$/i.test(value)) {
    throw new ConnectorError('invalid_params', 'invalid params', [
      { path: `/params/${name}`, message: 'must not be . or ..' },
    ]);
  }
  return value;
}

// https://docs.sentry.io/api/projects/list-your-projects/: every project the token can see, across organizations.
const listProjects = linkList(() => 'projects/', []);
const listOrganizationProjects = linkList(
  (p) => sentryPath('organizations', s(p, 'organization_slug'), 'projects'),
  ['organization_slug'],
);
const listIssues = linkList(
  (p) => sentryPath('projects', s(p, 'organization_slug'), s(p, 'project_slug'), 'issues'),
  ['organization_slug', 'project_slug'],
);
const listEvents = linkList(
  (p) => sentryPath('projects', s(p, 'organization_slug'), s(p, 'project_slug'), 'events'),
  ['organization_slug', 'project_slug'],
);
const listReleases = linkList(
  (p) => sentryPath('organizations', s(p, 'organization_slug'), 'releases'),
  ['organization_slug'],
);

const projects: EntityOperations<SentryContext> = {
  list: listProjects,
  get: (ctx, p) =>
    ctx.http.json({
      path: sentryPath('projects', s(p, 'organization_slug'), s(p, 'project_slug')),
      signal: ctx.signal,
    }),
  // Replication reads the configured organization's projects (the parents of its issues and events, see the
  // catalog): https://docs.sentry.io/api/organizations/list-an-organizations-projects/
  read: (ctx, request) =>
    ctx.config.organization_slug
      ? readByListing(
          (p) => listOrganizationProjects(ctx, p),
          { organization_slug: ctx.config.organization_slug },
          request.resume,
        )
      : readByListing((p) => listProjects(ctx, p), {}, request.resume),
};

const issues: EntityOperations<SentryContext> = {
  list: listIssues,
  // https://docs.sentry.io/api/events/retrieve-an-issue/
  get: (ctx, p) =>
    ctx.http.json({
      path: sentryPath('organizations', s(p, 'organization_slug'), 'issues', s(p, 'issue_id')),
      signal: ctx.signal,
    }),
  // Incremental by lastSeen. A non-empty query replaces the default `is:unresolved`, so every status comes back;
  // `>=` (not `>`) keeps issues seen exactly at the cursor (writes are idempotent).
  read: (ctx, request) =>
    readByListing(
      (p) => listIssues(ctx, p),
      {
        organization_slug: organizationOf(ctx, request),
        project_slug: String(request.parentParams?.project_slug ?? ''),
        query: `lastSeen:>=${new Date(request.since).toISOString()}`,
        statsPeriod: '',
      },
      request.resume,
    ),
};

const events: EntityOperations<SentryContext> = {
  list: listEvents,
  // https://docs.sentry.io/api/events/retrieve-an-event-for-a-project/
  get: (ctx, p) =>
    ctx.http.json({
      path: sentryPath('projects', s(p, 'organization_slug'), s(p, 'project_slug'), 'events', s(p, 'event_id')),
      signal: ctx.signal,
    }),
  // Incremental by dateCreated: `start` needs an `end`; the end is fixed when the run starts, so pages are stable.
  read: (ctx, request) =>
    readByListing(
      (p) => listEvents(ctx, p),
      {
        organization_slug: organizationOf(ctx, request),
        project_slug: String(request.parentParams?.project_slug ?? ''),
        full: 'true',
        start: new Date(request.since).toISOString(),
        end: new Date().toISOString(),
      },
      request.resume,
    ),
};

const releases: EntityOperations<SentryContext> = {
  list: listReleases,
  // https://docs.sentry.io/api/releases/retrieve-an-organizations-release/ (the version is path-escaped: it may hold `@`, `/`, `+`).
  get: (ctx, p) =>
    ctx.http.json({
      path: sentryPath('organizations', s(p, 'organization_slug'), 'releases', s(p, 'version')),
      signal: ctx.signal,
    }),
  read: (ctx, request) =>
    readByListing((p) => listReleases(ctx, p), { organization_slug: organizationOf(ctx, request) }, request.resume),
};

export const sentryConnector = defineConnector<SentryCredentials, SentryConfig>({
  catalog: sentryCatalog,
  defaultBaseUrl: 'https://sentry.io/api/0',
  auth: ({ credentials }) => bearerAuth(credentials.auth_token),
  entities: { projects, issues, events, releases },
});
