import { z } from 'zod';
import { defineCatalog, entity, fieldCursor, type Paging, unpaged } from '../../core/catalog.ts';
import { pathId, startDateReplicationConfig } from '../../core/common-schemas.ts';
import { type FieldMap, pick, t } from '../../core/field-spec.ts';
import { fields } from '../../core/fields.ts';
import { sentryWebhooks } from './webhooks.ts';

/*
 * Error monitoring = Sentry Web API, base https://sentry.io/api/0. Sources: Sentry's API reference
 * (https://docs.sentry.io/api/: projects, issues, events, releases).
 *
 * Error monitoring records declare every field nullable except the identifier.
 * Timestamps the vendor sends as strings (dateCreated, firstSeen, lastSeen, firstEvent, ...) are `datetime`
 * here so search compares them as instants.
 *
 * Organization for replication: every organization-scoped action takes organization_slug as a parameter, but replication has no caller to pass it. Decision: replication covers every organization the token can
 * see, discovered with GET /api/0/organizations/ (https://docs.sentry.io/api/organizations/list-your-organizations/);
 * the connector configuration may narrow it to one (`organization_slug`, optional, see `config` below). Projects
 * are read per organization (organizations/{org}/projects/) and are the parents of issues and events, which take
 * both the project's slug and its organization's slug from the parent record; releases are read per organization.
 * Live actions never need the configuration (they take organization_slug in params).
 */

// The catalog shows no Meta for this connector; Sentry pages with a Link header cursor, which list actions return
// as meta.next_cursor (null on the last page) so that callers can pass it back as `cursor`.
const meta: FieldMap = fields`next_cursor: string`;
/**
 * https://docs.sentry.io/api/pagination/: bare arrays, the next page's cursor in the `Link` header. Paths end with a
 * slash (Sentry's canonical URLs do).
 */
const paging: Paging = { type: 'link_header', param: 'cursor', meta: 'next_cursor' };

/** Sentry slugs (organizations and projects): lowercase letters, digits, `-` and `_`. */
const slug = z
  .string()
  .regex(/^[a-z0-9_-]{1,100}$/, 'must be a slug: lowercase letters, digits, hyphens and underscores, e.g. my-org');

/** Opaque Link-header cursor, e.g. `0:100:0`. */
const cursor = z.string().min(1).optional();

// ---------------------------------------------------------------------------------------------------------------
// projects
// ---------------------------------------------------------------------------------------------------------------

/** Fields of a project as the list (GET /projects/) returns it. */
const projectListFields: FieldMap = fields`
  id!, name, slug, status, platform: string
  dateCreated: datetime
  color: string
  firstEvent: datetime
  isBookmarked, isMember, hasAccess, isPublic, isInternal, firstTransactionEvent, hasMinifiedStackTrace,
  hasMonitors, hasProfiles, hasReplays, hasFeedbacks, hasFlags, hasNewFeedbacks, hasSessions, hasInsightsHttp,
  hasInsightsDb, hasInsightsAssets, hasInsightsAppStart, hasInsightsScreenLoad, hasInsightsVitals,
  hasInsightsCaches, hasInsightsQueues, hasInsightsAgentMonitoring, hasInsightsMCP, hasLogs, hasTraceMetrics: boolean
  features, access: array
  avatar, organization: object
`;

/** Fields that only the get (GET /projects/{org}/{project}/) adds to a project. */
const projectGetOnlyFields: FieldMap = fields`
  team, latestRelease, options, highlightContext, highlightPreset: object
  teams, safeFields, sensitiveFields, allowedDomains, plugins,
  platforms, builtinSymbolSources, dynamicSamplingBiases, highlightTags: array
  digestsMinDelay, digestsMaxDelay, resolveAge, processingIssues, secondaryGroupingExpiry: integer
  dataScrubber, verifySSL, scrubIPAddresses, scrapeJavaScript,
  dataScrubberDefaults, isDynamicallySampled, seerScannerAutomation: boolean
  // Boolean or integer. The field vocabulary has no union: typed integer (Sentry's current form, the
  // number of crash reports to store; older projects answer a boolean). Not searchable, so it maps nothing.
  storeCrashReports: integer
  securityToken, subjectPrefix, subjectTemplate, securityTokenHeader, groupingConfig,
  groupingEnhancements, derivedGroupingEnhancements, secondaryGroupingConfig, fingerprintingRules,
  defaultEnvironment, relayPiiConfig, symbolSources, autofixAutomationTuning, debugFilesRole: string
`;

/**
 * The catalog gives two record shapes for projects: the list's, and the get's, which adds fields. `record` is the
 * union of both (the get's shape); a list record holds the subset `PROJECT_LIST_FIELDS`, and replicated records
 * (read through the list) hold that subset too.
 */
export const PROJECT_LIST_FIELDS: readonly string[] = Object.keys(projectListFields);

const projectRecord: FieldMap = { ...projectListFields, ...projectGetOnlyFields };

const projects = entity({
  name: 'projects',
  upstream: {
    // https://docs.sentry.io/api/projects/list-your-projects/: every project the token can see, across organizations.
    path: 'projects/',
    records: null,
    paging,
    get: { path: 'projects/{organization_slug}/{project_slug}/' },
  },
  record: projectRecord,
  meta,
  searchable: {
    ...pick(projectRecord, [
      'access',
      'avatar',
      'color',
      'dateCreated',
      'features',
      'firstEvent',
      'firstTransactionEvent',
      'hasAccess',
    ]),
    // Searchable in the catalog but in neither record shape (an older Sentry project flag): a boolean.
    hasCustomMetrics: t.boolean(),
    ...pick(projectRecord, [
      'hasFeedbacks',
      'hasMinifiedStackTrace',
      'hasMonitors',
      'hasNewFeedbacks',
      'hasProfiles',
      'hasReplays',
      'hasSessions',
      'id',
      'isBookmarked',
      'isInternal',
      'isMember',
      'isPublic',
      'name',
      'organization',
      'platform',
      'slug',
      'status',
    ]),
  },
  actions: {
    list: z.strictObject({ cursor }),
    get: z.strictObject({ organization_slug: slug, project_slug: slug }),
  },
  // The projects list has no time filter: full refresh.
  sync: { mode: 'full_refresh' },
});

/*
 * project_detail: the seed system's action beyond the catalog, one project's full
 * record, live only. The tsv names the path `projects/{org}/{project}/detail/`; Sentry has no such endpoint, and
 * its "Retrieve a Project" (https://docs.sentry.io/api/projects/retrieve-a-project/) is
 * `projects/{org}/{project}/`, so that is what is called (deliberate deviation from the tsv path).
 */
const projectDetail = entity({
  name: 'project_detail',
  upstream: {
    ...unpaged('projects/{organization_slug}/{project_slug}/', null),
    get: { path: 'projects/{organization_slug}/{project_slug}/' },
  },
  record: projectRecord,
  actions: { get: z.strictObject({ organization_slug: slug, project_slug: slug }) },
});

/** Issues and events are read per replicated project, in the project's organization (see the header comment). */
const perProject = {
  entity: 'projects',
  param: 'project_slug',
  from: 'slug',
  extra: { organization_slug: 'organization.slug' },
} as const;

// ---------------------------------------------------------------------------------------------------------------
// issues
// ---------------------------------------------------------------------------------------------------------------

/** States: error monitoring issues.status. */
export const ISSUE_STATUSES = ['resolved', 'unresolved', 'ignored'] as const;

const issueRecord: FieldMap = fields`
  id!, title, shortId, culprit, level: string
  status: ${t.string({ enum: ISSUE_STATUSES })}
  type: string
  // Sentry sends the event count as a string (it can exceed 2^53).
  count: string
  firstSeen, lastSeen: datetime
  logger, permalink, platform, shareId, issueType, issueCategory, substatus: string
  userCount, numComments: integer
  hasSeen, isBookmarked, isPublic, isSubscribed, isUnhandled: boolean
  metadata, project, stats, statusDetails, assignedTo, subscriptionDetails: object
  annotations: array
`;

const issues = entity({
  name: 'issues',
  upstream: {
    path: 'projects/{organization_slug}/{project_slug}/issues/',
    records: null,
    paging,
    // https://docs.sentry.io/api/events/retrieve-an-issue/
    get: { path: 'organizations/{organization_slug}/issues/{issue_id}/' },
  },
  record: issueRecord,
  // The error's message and where it was raised: searched by meaning (docs/search.md).
  embed: ['title', 'culprit'],
  meta,
  actions: {
    list: z.strictObject({
      organization_slug: slug,
      project_slug: slug,
      // Structured search; when omitted Sentry applies is:unresolved, an empty string returns every status.
      query: z.string().optional(),
      statsPeriod: z.enum(['24h', '14d', '']).optional(),
      cursor,
    }),
    // Sentry takes the numeric id or the short id (e.g. PROJ-1A) here.
    get: z.strictObject({ organization_slug: slug, issue_id: pathId }),
  },
  // Sentry filters issues with query=lastSeen:>{since}. Replication sends its own query, without
  // the is:unresolved default, so resolved and ignored issues are replicated too.
  sync: { mode: 'incremental', cursorField: 'lastSeen', parent: perProject },
  // lastSeen is the time of the issue's latest event (https://docs.sentry.io/concepts/search/searchable-properties/
  // issues): resolving, ignoring or assigning an issue does not move it, and Sentry offers no "updated since"
  // filter on issues; deleted (or merged) issues are just no longer listed. Both need the full pass.
  changeCapture: fieldCursor(
    { seesEdits: false, seesDeletions: false },
    'https://docs.sentry.io/concepts/search/ (issue properties: lastSeen)',
  ),
});

// ---------------------------------------------------------------------------------------------------------------
// events
// ---------------------------------------------------------------------------------------------------------------

const eventRecord: FieldMap = fields`
  id!, eventID, groupID, title, message, type, platform: string
  dateCreated, dateReceived: datetime
  culprit, location, crashFile, projectID, sdk, dist: string
  // A literal key with a dot in Sentry's event list rows (not a nested path).
  event.type: string
  // Payload size in bytes.
  size: integer
  tags, entries, errors, fingerprints: array
  user, metadata, context, contexts, packages, groupingConfig, _meta: object
`;

/** Sentry event ids: 32 hexadecimal digits (a UUID without dashes). */
const eventId = z.string().regex(/^[0-9a-fA-F]{32}$/, 'must be an event id of 32 hexadecimal digits');

const events = entity({
  name: 'events',
  upstream: {
    path: 'projects/{organization_slug}/{project_slug}/events/',
    records: null,
    paging,
    // https://docs.sentry.io/api/events/retrieve-an-event-for-a-project/
    get: { path: 'projects/{organization_slug}/{project_slug}/events/{event_id}/' },
  },
  record: eventRecord,
  meta,
  searchable: {
    ...eventRecord,
    // Searchable in the catalog but not a record field: a string.
    occurrence: t.string(),
  },
  actions: {
    list: z.strictObject({
      organization_slug: slug,
      project_slug: slug,
      // The catalog: a string, `true` for the full event body; a boolean is accepted too and sent as a string.
      full: z.union([z.enum(['true', 'false']), z.boolean()]).optional(),
      cursor,
    }),
    get: z.strictObject({ organization_slug: slug, project_slug: slug, event_id: eventId }),
  },
  // Sentry filters a project's events with start/end on their creation time.
  sync: { mode: 'incremental', cursorField: 'dateCreated', parent: perProject },
  // An event is immutable once stored; it disappears when its issue is deleted or its retention ends, which no
  // incremental read sees: the full pass removes it.
  changeCapture: fieldCursor(
    { seesEdits: true, seesDeletions: false },
    'https://docs.sentry.io/api/events/list-a-projects-error-events/ (start/end on creation time)',
  ),
});

// ---------------------------------------------------------------------------------------------------------------
// releases
// ---------------------------------------------------------------------------------------------------------------

const releaseRecord: FieldMap = fields`
  id!: integer
  version, shortVersion, ref, url, status: string
  dateCreated, dateReleased: datetime
  owner: string
  firstEvent, lastEvent: datetime
  userAgent: string
  newGroups, commitCount, deployCount: integer
  lastCommit, lastDeploy, data, versionInfo, currentProjectMeta: object
  authors, projects: array
`;

const releases = entity({
  name: 'releases',
  upstream: {
    path: 'organizations/{organization_slug}/releases/',
    records: null,
    paging,
    // https://docs.sentry.io/api/releases/retrieve-an-organizations-release/ (the version is path-escaped: it may hold `@`, `/`, `+`).
    get: { path: 'organizations/{organization_slug}/releases/{version}/' },
  },
  record: releaseRecord,
  meta,
  // Every record field is searchable (version and versionInfo included).
  searchable: releaseRecord,
  actions: {
    list: z.strictObject({
      organization_slug: slug,
      // Starts-with filter on the version.
      query: z.string().optional(),
      cursor,
    }),
    get: z.strictObject({ organization_slug: slug, version: pathId }),
  },
  // Releases change after creation (lastEvent, newGroups, deploys) and have no update-time filter: full refresh.
  sync: { mode: 'full_refresh' },
});

// ---------------------------------------------------------------------------------------------------------------
// Credentials, config
// ---------------------------------------------------------------------------------------------------------------

/** A Sentry auth token sent as `Authorization: Bearer` (https://docs.sentry.io/api/auth/). */
const credentials = z.strictObject({ auth_token: z.string().min(1) });

/** See the header comment: narrows replication to one organization (default: every organization the token sees). */
const config = z.strictObject({ organization_slug: slug.optional() });

export const sentryCatalog = defineCatalog({
  connectorType: 'Sentry',
  copyVersion: {
    by: 'read_instant',
    why: '`lastSeen` moves with new events, not with edits such as a status change; issues have no revision field.',
    source: 'https://docs.sentry.io/api/events/retrieve-an-issue/',
  },
  webhooks: sentryWebhooks,
  rateLimit: {
    perSecond: null,
    scope: 'per caller and endpoint, fixed windows of their own size (X-Sentry-Rate-Limit-* headers)',
    source: 'https://docs.sentry.io/api/ratelimits/',
  },
  purpose: 'error monitoring',
  credentials,
  replicationConfig: startDateReplicationConfig,
  config,
  entities: { projects, issues, events, releases, project_detail: projectDetail },
});
