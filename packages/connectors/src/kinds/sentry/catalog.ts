import { z } from 'zod';
import { defineCatalog, type EntityCatalog, fieldCursor, type Paging } from '../../core/catalog.ts';
import { pathId, startDateReplicationConfig } from '../../core/common-schemas.ts';
import { type FieldMap, notNull, pick, t } from '../../core/field-spec.ts';
import { sentryWebhooks } from './webhooks.ts';

/*
 * Error monitoring = Sentry Web API (docs/api.md), base https://sentry.io/api/0. Sources: the specification's "Error monitoring
 * connector", the vendor's API reference, Sentry's API reference (projects, issues, events, releases).
 *
 * The specification: error monitoring records "declare every field nullable except the identifier".
 * Timestamps typed as strings in the specification (dateCreated, firstSeen, lastSeen, firstEvent, ...) are `datetime`
 * here so search compares them as instants.
 *
 * Organization for replication: the specification passes organization_slug as a parameter of every organization-scoped
 * action, but replication has no caller to pass it. Decision: replication covers every organization the token can
 * see, discovered with GET /api/0/organizations/ (https://docs.sentry.io/api/organizations/list-your-organizations/);
 * the connector configuration may narrow it to one (`organization_slug`, optional, see `config` below). Projects
 * are read per organization (organizations/{org}/projects/) and are the parents of issues and events, which take
 * both the project's slug and its organization's slug from the parent record; releases are read per organization.
 * Live actions never need the configuration (they take organization_slug in params).
 */

// The specification shows no Meta for this connector; Sentry pages with a Link header cursor, which list actions return
// as meta.next_cursor (null on the last page) so that callers can pass it back as `cursor`.
const meta: FieldMap = { next_cursor: t.string() };
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
const projectListFields: FieldMap = {
  id: notNull(t.string()),
  name: t.string(),
  slug: t.string(),
  status: t.string(),
  platform: t.string(),
  dateCreated: t.datetime(),
  color: t.string(),
  firstEvent: t.datetime(),
  isBookmarked: t.boolean(),
  isMember: t.boolean(),
  hasAccess: t.boolean(),
  isPublic: t.boolean(),
  isInternal: t.boolean(),
  firstTransactionEvent: t.boolean(),
  hasMinifiedStackTrace: t.boolean(),
  hasMonitors: t.boolean(),
  hasProfiles: t.boolean(),
  hasReplays: t.boolean(),
  hasFeedbacks: t.boolean(),
  hasFlags: t.boolean(),
  hasNewFeedbacks: t.boolean(),
  hasSessions: t.boolean(),
  hasInsightsHttp: t.boolean(),
  hasInsightsDb: t.boolean(),
  hasInsightsAssets: t.boolean(),
  hasInsightsAppStart: t.boolean(),
  hasInsightsScreenLoad: t.boolean(),
  hasInsightsVitals: t.boolean(),
  hasInsightsCaches: t.boolean(),
  hasInsightsQueues: t.boolean(),
  hasInsightsAgentMonitoring: t.boolean(),
  hasInsightsMCP: t.boolean(),
  hasLogs: t.boolean(),
  hasTraceMetrics: t.boolean(),
  features: t.array(),
  access: t.array(),
  avatar: t.object(),
  organization: t.object(),
};

/** Fields that only the get (GET /projects/{org}/{project}/) adds to a project. */
const projectGetOnlyFields: FieldMap = {
  team: t.object(),
  latestRelease: t.object(),
  options: t.object(),
  highlightContext: t.object(),
  highlightPreset: t.object(),
  teams: t.array(),
  safeFields: t.array(),
  sensitiveFields: t.array(),
  allowedDomains: t.array(),
  plugins: t.array(),
  platforms: t.array(),
  builtinSymbolSources: t.array(),
  dynamicSamplingBiases: t.array(),
  highlightTags: t.array(),
  digestsMinDelay: t.integer(),
  digestsMaxDelay: t.integer(),
  resolveAge: t.integer(),
  processingIssues: t.integer(),
  secondaryGroupingExpiry: t.integer(),
  dataScrubber: t.boolean(),
  verifySSL: t.boolean(),
  scrubIPAddresses: t.boolean(),
  scrapeJavaScript: t.boolean(),
  dataScrubberDefaults: t.boolean(),
  isDynamicallySampled: t.boolean(),
  seerScannerAutomation: t.boolean(),
  // The specification: "boolean or integer". The field vocabulary has no union: typed integer (Sentry's current form, the
  // number of crash reports to store; older projects answer a boolean). Not searchable, so it maps nothing.
  storeCrashReports: t.integer(),
  securityToken: t.string(),
  subjectPrefix: t.string(),
  subjectTemplate: t.string(),
  securityTokenHeader: t.string(),
  groupingConfig: t.string(),
  groupingEnhancements: t.string(),
  derivedGroupingEnhancements: t.string(),
  secondaryGroupingConfig: t.string(),
  fingerprintingRules: t.string(),
  defaultEnvironment: t.string(),
  relayPiiConfig: t.string(),
  symbolSources: t.string(),
  autofixAutomationTuning: t.string(),
  debugFilesRole: t.string(),
};

/**
 * The specification gives two record shapes for projects: the list's, and the get's, which adds fields. `record` is the
 * union of both (the get's shape); a list record holds the subset `PROJECT_LIST_FIELDS`, and replicated records
 * (read through the list) hold that subset too.
 */
export const PROJECT_LIST_FIELDS: readonly string[] = Object.keys(projectListFields);

const projectRecord: FieldMap = { ...projectListFields, ...projectGetOnlyFields };

const projects: EntityCatalog = {
  name: 'projects',
  recordKey: 'id',
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
    // Searchable in the specification but in neither record shape (an older Sentry project flag): a boolean.
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
};

/*
 * project_detail: the seed system's action beyond the specification, one project's full
 * record, live only. The tsv names the path `projects/{org}/{project}/detail/`; Sentry has no such endpoint, and
 * its "Retrieve a Project" (https://docs.sentry.io/api/projects/retrieve-a-project/) is
 * `projects/{org}/{project}/`, so that is what is called (deliberate deviation from the tsv path).
 */
const projectDetail: EntityCatalog = {
  name: 'project_detail',
  recordKey: 'id',
  upstream: {
    path: 'projects/{organization_slug}/{project_slug}/',
    records: null,
    paging: { type: 'none' },
    get: { path: 'projects/{organization_slug}/{project_slug}/' },
  },
  record: projectRecord,
  actions: { get: z.strictObject({ organization_slug: slug, project_slug: slug }) },
};

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

/** The specification's "States": error monitoring issues.status. */
export const ISSUE_STATUSES = ['resolved', 'unresolved', 'ignored'] as const;

const issueRecord: FieldMap = {
  id: notNull(t.string()),
  title: t.string(),
  shortId: t.string(),
  culprit: t.string(),
  level: t.string(),
  status: t.string({ enum: ISSUE_STATUSES }),
  type: t.string(),
  // Sentry sends the event count as a string (it can exceed 2^53).
  count: t.string(),
  firstSeen: t.datetime(),
  lastSeen: t.datetime(),
  logger: t.string(),
  permalink: t.string(),
  platform: t.string(),
  shareId: t.string(),
  issueType: t.string(),
  issueCategory: t.string(),
  substatus: t.string(),
  userCount: t.integer(),
  numComments: t.integer(),
  hasSeen: t.boolean(),
  isBookmarked: t.boolean(),
  isPublic: t.boolean(),
  isSubscribed: t.boolean(),
  isUnhandled: t.boolean(),
  metadata: t.object(),
  project: t.object(),
  stats: t.object(),
  statusDetails: t.object(),
  assignedTo: t.object(),
  subscriptionDetails: t.object(),
  annotations: t.array(),
};

const issues: EntityCatalog = {
  name: 'issues',
  recordKey: 'id',
  upstream: {
    path: 'projects/{organization_slug}/{project_slug}/issues/',
    records: null,
    paging,
    // https://docs.sentry.io/api/events/retrieve-an-issue/
    get: { path: 'organizations/{organization_slug}/issues/{issue_id}/' },
  },
  record: issueRecord,
  meta,
  searchable: issueRecord,
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
};

// ---------------------------------------------------------------------------------------------------------------
// events
// ---------------------------------------------------------------------------------------------------------------

const eventRecord: FieldMap = {
  id: notNull(t.string()),
  eventID: t.string(),
  groupID: t.string(),
  title: t.string(),
  message: t.string(),
  type: t.string(),
  platform: t.string(),
  dateCreated: t.datetime(),
  dateReceived: t.datetime(),
  culprit: t.string(),
  location: t.string(),
  crashFile: t.string(),
  projectID: t.string(),
  sdk: t.string(),
  dist: t.string(),
  // A literal key with a dot in Sentry's event list rows (not a nested path).
  'event.type': t.string(),
  // Payload size in bytes.
  size: t.integer(),
  tags: t.array(),
  entries: t.array(),
  errors: t.array(),
  fingerprints: t.array(),
  user: t.object(),
  metadata: t.object(),
  context: t.object(),
  contexts: t.object(),
  packages: t.object(),
  groupingConfig: t.object(),
  _meta: t.object(),
};

/** Sentry event ids: 32 hexadecimal digits (a UUID without dashes). */
const eventId = z.string().regex(/^[0-9a-fA-F]{32}$/, 'must be an event id of 32 hexadecimal digits');

const events: EntityCatalog = {
  name: 'events',
  recordKey: 'id',
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
    // Searchable in the specification but not a record field: a string.
    occurrence: t.string(),
  },
  actions: {
    list: z.strictObject({
      organization_slug: slug,
      project_slug: slug,
      // The specification: a string, `true` for the full event body; a boolean is accepted too and sent as a string.
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
};

// ---------------------------------------------------------------------------------------------------------------
// releases
// ---------------------------------------------------------------------------------------------------------------

const releaseRecord: FieldMap = {
  id: notNull(t.integer()),
  version: t.string(),
  shortVersion: t.string(),
  ref: t.string(),
  url: t.string(),
  status: t.string(),
  dateCreated: t.datetime(),
  dateReleased: t.datetime(),
  owner: t.string(),
  firstEvent: t.datetime(),
  lastEvent: t.datetime(),
  userAgent: t.string(),
  newGroups: t.integer(),
  commitCount: t.integer(),
  deployCount: t.integer(),
  lastCommit: t.object(),
  lastDeploy: t.object(),
  data: t.object(),
  versionInfo: t.object(),
  currentProjectMeta: t.object(),
  authors: t.array(),
  projects: t.array(),
};

const releases: EntityCatalog = {
  name: 'releases',
  recordKey: 'id',
  upstream: {
    path: 'organizations/{organization_slug}/releases/',
    records: null,
    paging,
    // https://docs.sentry.io/api/releases/retrieve-an-organizations-release/ (the version is path-escaped: it may hold `@`, `/`, `+`).
    get: { path: 'organizations/{organization_slug}/releases/{version}/' },
  },
  record: releaseRecord,
  meta,
  // The specification lists the searchable fields alphabetically up to userAgent and leaves the rest "not shown"; the
  // listed ones are exactly the record fields up to userAgent in alphabetical order, and the record fields after
  // it are version and versionInfo: the decision is that every record field is searchable.
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
};

// ---------------------------------------------------------------------------------------------------------------
// Credentials, config
// ---------------------------------------------------------------------------------------------------------------

/** The specification: "not shown"; docs/api.md: the vendor's auth, a Sentry auth token sent as `Authorization: Bearer`. */
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
