import { hexId, instantBetween, int, pick, type SeededDataOptions, seededRandom } from '../kit/random.ts';

export type SentryRecord = Record<string, unknown>;

export interface SentryProject extends SentryRecord {
  id: string;
  slug: string;
  organization: { id: string; slug: string; name: string };
}

export interface SentryIssue extends SentryRecord {
  id: string;
  lastSeen: string;
  status: string;
}

export interface SentryEvent extends SentryRecord {
  id: string;
  eventID: string;
  groupID: string;
  dateCreated: string;
}

export interface SentryRelease extends SentryRecord {
  id: number;
  version: string;
  dateCreated: string;
}

export interface SentryData {
  organizations: { id: string; slug: string; name: string }[];
  projects: SentryProject[];
  /** By project id. */
  issues: Map<string, SentryIssue[]>;
  /** By project id. */
  events: Map<string, SentryEvent[]>;
  /** By organization slug. */
  releases: Map<string, SentryRelease[]>;
}

export interface SentryDataOptions extends SeededDataOptions {
  /** Projects per organization; issues, events and releases scale with `issuesPerProject`. */
  projectsPerOrganization?: number;
  issuesPerProject?: number;
}

const PLATFORMS = ['javascript', 'python', 'node', 'go', 'java'];
const ERRORS = ['TypeError', 'ValueError', 'KeyError', 'ReferenceError', 'NullPointerException', 'TimeoutError'];
const FLAG_NAMES = [
  'isBookmarked',
  'isMember',
  'hasAccess',
  'isPublic',
  'isInternal',
  'hasMinifiedStackTrace',
  'hasMonitors',
  'hasProfiles',
  'hasReplays',
  'hasFeedbacks',
  'hasFlags',
  'hasNewFeedbacks',
  'hasSessions',
  'hasInsightsHttp',
  'hasInsightsDb',
  'hasInsightsAssets',
  'hasInsightsAppStart',
  'hasInsightsScreenLoad',
  'hasInsightsVitals',
  'hasInsightsCaches',
  'hasInsightsQueues',
  'hasInsightsAgentMonitoring',
  'hasInsightsMCP',
  'hasLogs',
  'hasTraceMetrics',
];

/** Sentry timestamps: ISO 8601 with milliseconds and Z (https://docs.sentry.io/api/). */
export function sentryTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** Deterministic Sentry-shaped data: two organizations, their projects, issues, events and releases. */
export function generateSentryData(options: SentryDataOptions = {}): SentryData {
  const random = seededRandom(options.seed ?? 11);
  const from = options.from ?? '2023-01-01T00:00:00Z';
  const to = options.to ?? '2025-06-30T00:00:00Z';
  const organizations = [
    { id: '1001', slug: 'acme', name: 'Acme' },
    { id: '1002', slug: 'globex', name: 'Globex' },
  ];
  const projects: SentryProject[] = [];
  const issues = new Map<string, SentryIssue[]>();
  const events = new Map<string, SentryEvent[]>();
  const releases = new Map<string, SentryRelease[]>();
  let issueSeq = 4_000_000;
  let releaseSeq = 900;
  for (const organization of organizations) {
    const orgReleases: SentryRelease[] = [];
    for (let p = 0; p < (options.projectsPerOrganization ?? 2); p++) {
      const slug = `${organization.slug}-${pick(random, ['web', 'api', 'mobile', 'worker'])}-${p}`;
      const platform = pick(random, PLATFORMS);
      const created = instantBetween(random, from, '2023-06-01T00:00:00Z');
      const project: SentryProject = {
        id: String(5_000_000 + projects.length),
        slug,
        name: slug,
        status: 'active',
        platform,
        dateCreated: sentryTime(created),
        color: `#${hexId(random, 6)}`,
        firstEvent: sentryTime(created + 3_600_000),
        firstTransactionEvent: random() < 0.5,
        features: ['alert-filters', 'minidump', 'similarity-indexing'],
        access: ['project:read', 'event:read'],
        avatar: { avatarType: 'letter_avatar', avatarUuid: null },
        organization,
        ...Object.fromEntries(
          FLAG_NAMES.map((name) => [name, name === 'hasAccess' || name === 'isMember' ? true : random() < 0.3]),
        ),
        // Fields only GET /projects/{org}/{project}/ adds (the specification: "projects record (get) adds").
        team: { id: '1', slug: 'backend', name: 'Backend' },
        teams: [{ id: '1', slug: 'backend', name: 'Backend' }],
        latestRelease: null,
        options: { 'sentry:token': null },
        digestsMinDelay: 300,
        digestsMaxDelay: 1800,
        resolveAge: 0,
        dataScrubber: true,
        verifySSL: false,
        scrubIPAddresses: false,
        storeCrashReports: null,
        securityToken: hexId(random, 32),
        subjectPrefix: '',
        allowedDomains: ['*'],
        plugins: [],
        groupingConfig: 'newstyle:2023-01-11',
        defaultEnvironment: null,
      };
      projects.push(project);
      const projectRef = { id: project.id, name: project.name, slug: project.slug, platform };
      const projectIssues: SentryIssue[] = [];
      const projectEvents: SentryEvent[] = [];
      const count = Math.max(1, Math.round((options.issuesPerProject ?? 10) * (0.5 + random())));
      for (let i = 0; i < count; i++) {
        const id = String(issueSeq++);
        const error = pick(random, ERRORS);
        const firstSeen = instantBetween(random, from, to);
        const lastSeen = Math.min(firstSeen + int(random, 0, 60) * 86_400_000, Date.parse(to));
        const status = pick(random, ['unresolved', 'unresolved', 'resolved', 'ignored']);
        const title = `${error}: ${pick(random, ['undefined is not a function', 'invalid literal', 'missing key', 'timed out'])}`;
        const culprit = `${pick(random, ['app/views', 'lib/handlers', 'src/jobs'])}.${pick(random, ['index', 'process', 'run'])}`;
        projectIssues.push({
          id,
          shortId: `${slug.toUpperCase()}-${(i + 1).toString(36).toUpperCase()}`,
          title,
          culprit,
          level: pick(random, ['error', 'error', 'warning', 'fatal']),
          status,
          substatus: status === 'unresolved' ? 'ongoing' : null,
          type: 'error',
          issueType: 'error',
          issueCategory: 'error',
          count: String(int(random, 1, 5000)),
          userCount: int(random, 0, 400),
          numComments: int(random, 0, 3),
          firstSeen: sentryTime(firstSeen),
          lastSeen: sentryTime(lastSeen),
          logger: null,
          permalink: `https://${organization.slug}.sentry.io/issues/${id}/`,
          platform,
          shareId: null,
          hasSeen: random() < 0.5,
          isBookmarked: false,
          isPublic: false,
          isSubscribed: random() < 0.5,
          isUnhandled: random() < 0.4,
          metadata: { type: error, value: title.split(': ')[1], filename: `${culprit.split('.')[0]}.js` },
          project: projectRef,
          stats: { '24h': [[Math.floor(lastSeen / 1000), int(random, 0, 10)]] },
          statusDetails: {},
          assignedTo: null,
          subscriptionDetails: null,
          annotations: [],
        });
        for (let e = 0; e < int(random, 1, 2); e++) {
          const eventId = hexId(random, 32);
          const at = firstSeen + Math.floor(((lastSeen - firstSeen) * e) / 2);
          projectEvents.push({
            id: eventId,
            eventID: eventId,
            groupID: id,
            title,
            message: title,
            type: 'error',
            'event.type': 'error',
            platform,
            dateCreated: sentryTime(at),
            dateReceived: sentryTime(at + 1000),
            culprit,
            location: `${culprit.split('.')[0]}.js`,
            crashFile: null,
            projectID: project.id,
            sdk: null,
            dist: null,
            size: int(random, 800, 9000),
            tags: [
              { key: 'level', value: 'error' },
              { key: 'environment', value: pick(random, ['production', 'staging']) },
            ],
            user: { id: String(int(random, 1, 500)), email: null, ip_address: null },
            // The rest is only in the full event body (`full=true`, or GET of one event).
            entries: [{ type: 'exception', data: { values: [{ type: error, value: title }] } }],
            errors: [],
            fingerprints: [hexId(random, 32)],
            metadata: { type: error, value: title },
            context: {},
            contexts: { browser: { name: 'Chrome', version: '126' } },
            packages: {},
            groupingConfig: { id: 'newstyle:2023-01-11', enhancements: 'eJybzDRxY3J' },
            _meta: {},
          });
        }
      }
      issues.set(project.id, projectIssues);
      events.set(project.id, projectEvents);
      for (let r = 0; r < Math.max(1, Math.round(count / 3)); r++) {
        const created = instantBetween(random, from, to);
        const version = `${slug}@1.${r}.${int(random, 0, 9)}`;
        orgReleases.push({
          id: releaseSeq++,
          version,
          shortVersion: version.split('@')[1],
          ref: hexId(random, 40),
          url: null,
          status: 'open',
          dateCreated: sentryTime(created),
          dateReleased: random() < 0.7 ? sentryTime(created + 600_000) : null,
          owner: null,
          firstEvent: null,
          lastEvent: null,
          newGroups: int(random, 0, 5),
          commitCount: int(random, 0, 20),
          deployCount: int(random, 0, 3),
          lastCommit: null,
          lastDeploy: null,
          data: {},
          versionInfo: {
            package: slug,
            version: { raw: version.split('@')[1] },
            buildHash: null,
            description: version,
          },
          authors: [],
          projects: [{ id: Number(project.id), slug, name: slug, platform, newGroups: 0 }],
          userAgent: null,
          currentProjectMeta: {},
        });
      }
    }
    releases.set(organization.slug, orgReleases);
  }
  return { organizations, projects, issues, events, releases };
}
