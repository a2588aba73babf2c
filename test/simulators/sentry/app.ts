import { type Context, Hono } from 'hono';
import { bearerToken } from '../kit/auth-header.ts';
import type { FaultInjector } from '../kit/faults.ts';
import { withFound } from '../kit/routes.ts';
import type { SentryData, SentryEvent, SentryIssue, SentryProject, SentryRecord } from './data.ts';

export interface SentryAppState {
  readonly data: SentryData;
  readonly faults: FaultInjector;
  readonly token: string;
  /** The organization the token belongs to (Sentry organization auth tokens see one organization). */
  readonly organization: string;
  /**
   * A user auth token: it sees every organization its user belongs to (here: all of them), as Sentry's user tokens
   * do (https://docs.sentry.io/api/auth/). Absent: only the organization token is accepted.
   */
  readonly userToken?: string;
  /** Records per page (Sentry: 100); smaller in tests so Link paging is exercised. */
  readonly pageSize: number;
}

const PROJECT_GET_ONLY = [
  'team',
  'teams',
  'latestRelease',
  'options',
  'digestsMinDelay',
  'digestsMaxDelay',
  'resolveAge',
  'dataScrubber',
  'verifySSL',
  'scrubIPAddresses',
  'storeCrashReports',
  'securityToken',
  'subjectPrefix',
  'allowedDomains',
  'plugins',
  'groupingConfig',
  'defaultEnvironment',
];
const EVENT_FULL_ONLY = [
  'entries',
  'errors',
  'fingerprints',
  'context',
  'contexts',
  'packages',
  'groupingConfig',
  '_meta',
  'sdk',
  'dist',
  'size',
  'dateReceived',
  'type',
];

/** Sentry error bodies are `{"detail": "..."}` (https://docs.sentry.io/api/). */
export function sentryError(detail: string) {
  return { detail };
}

export function throttledBody(seconds: number) {
  return sentryError(`Request was throttled. Expected available in ${seconds} seconds.`);
}

function omitKeys(record: SentryRecord, keys: readonly string[]): SentryRecord {
  return Object.fromEntries(Object.entries(record).filter(([k]) => !keys.includes(k)));
}

/**
 * Sentry cursor paging (https://docs.sentry.io/api/pagination/): bare-array bodies and a Link header with
 * rel="previous"/"next", each with results="true|false" and cursor="value:offset:is_prev".
 */
function paged(c: Context, rows: readonly SentryRecord[], pageSize: number): Response {
  const url = new URL(c.req.url);
  const cursor = url.searchParams.get('cursor') ?? '0:0:0';
  const match = /^(\d+):(\d+):([01])$/.exec(cursor);
  if (!match) return c.json(sentryError('Invalid cursor parameter.'), 400);
  const offset = Number(match[2]);
  const page = rows.slice(offset, offset + pageSize);
  const link = (rel: string, at: number, results: boolean, isPrev: number) => {
    const next = new URL(url);
    const value = `0:${Math.max(0, at)}:${isPrev}`;
    next.searchParams.set('cursor', value);
    return `<${next.toString()}>; rel="${rel}"; results="${results}"; cursor="${value}"`;
  };
  c.header(
    'link',
    [
      link('previous', offset - pageSize, offset > 0, 1),
      link('next', offset + pageSize, offset + pageSize < rows.length, 0),
    ].join(', '),
  );
  return c.json(page);
}

const newestFirst = (field: string) => (a: SentryRecord, b: SentryRecord) =>
  String(b[field]).localeCompare(String(a[field])) || String(b.id).localeCompare(String(a.id));

type Comparison = { field: string; op: string; at: number };

/** The subset of Sentry's structured issue search the simulator understands: is:<status>, <date field>:<op><iso>, text. */
function parseIssueQuery(query: string): { statuses: string[]; dates: Comparison[]; text: string[] } | string {
  const statuses: string[] = [];
  const dates: Comparison[] = [];
  const text: string[] = [];
  for (const token of query.split(/\s+/).filter(Boolean)) {
    const is = /^is:(resolved|unresolved|ignored)$/.exec(token);
    const date = /^(lastSeen|firstSeen):(>=|<=|>|<)?(.+)$/.exec(token);
    if (is) statuses.push(is[1]!);
    else if (date) {
      const at = Date.parse(date[3]!.endsWith('Z') || /[+-]\d\d:\d\d$/.test(date[3]!) ? date[3]! : `${date[3]}Z`);
      if (Number.isNaN(at)) return `Invalid date: ${date[3]}`;
      dates.push({ field: date[1]!, op: date[2] ?? '=', at });
    } else if (token.includes(':')) return `Invalid query: unsupported key in '${token}'`;
    else text.push(token.toLowerCase());
  }
  return { statuses, dates, text };
}

function compare(value: number, { op, at }: Comparison): boolean {
  if (op === '>') return value > at;
  if (op === '>=') return value >= at;
  if (op === '<') return value < at;
  if (op === '<=') return value <= at;
  return value === at;
}

/**
 * Sentry Web API as a connector meets it: bearer auth token, X-Sentry-Rate-Limit-* headers, 429 with
 * `{"detail": "Request was throttled. Expected available in N seconds."}`, Link-header cursor paging.
 */
export function createSentryApp(state: SentryAppState): Hono {
  const app = new Hono();
  const { data } = state;
  const notFound = (c: Context) => c.json(sentryError('The requested resource does not exist'), 404);
  app.use('*', async (c, next) => {
    c.header('x-sentry-rate-limit-limit', '40');
    c.header('x-sentry-rate-limit-remaining', '39');
    c.header('x-sentry-rate-limit-concurrentlimit', '25');
    c.header('x-sentry-rate-limit-concurrentremaining', '24');
    await next();
  });
  app.use(
    '*',
    state.faults.middleware((status) => (status === 429 ? throttledBody(1) : sentryError('Internal Error'))),
  );
  /** The organizations the request's token sees (set by the auth middleware). */
  const visibleOrgs = new WeakMap<Request, readonly string[]>();
  const orgsOf = (c: Context) => visibleOrgs.get(c.req.raw) ?? [];
  app.use('/api/0/*', async (c, next) => {
    const header = c.req.header('authorization');
    if (!header) return c.json(sentryError('Authentication credentials were not provided.'), 401);
    const token = bearerToken(header);
    if (token === state.token) visibleOrgs.set(c.req.raw, [state.organization]);
    else if (state.userToken !== undefined && token === state.userToken)
      visibleOrgs.set(
        c.req.raw,
        data.organizations.map((o) => o.slug),
      );
    else return c.json(sentryError('Invalid token'), 401);
    await next();
  });
  app.use('/api/0/:scope{projects|organizations}/:org/*', async (c, next) => {
    if (!data.organizations.some((o) => o.slug === c.req.param('org'))) return notFound(c);
    if (!orgsOf(c).includes(c.req.param('org')))
      return c.json(sentryError('You do not have permission to perform this action.'), 403);
    await next();
  });

  const projectOf = (c: Context): SentryProject | undefined =>
    data.projects.find((p) => p.organization.slug === c.req.param('org') && p.slug === c.req.param('project'));
  const orgExists = (c: Context) => data.organizations.some((o) => o.slug === c.req.param('org'));

  // https://docs.sentry.io/api/organizations/list-your-organizations/: the organizations the token can see,
  // Link-paged like every list.
  app.get('/api/0/organizations/', (c) => {
    const visible = data.organizations
      .filter((o) => orgsOf(c).includes(o.slug))
      .map((o) => ({
        ...o,
        dateCreated: '2022-01-01T00:00:00.000000Z',
        isEarlyAdopter: false,
        require2FA: false,
        status: { id: 'active', name: 'active' },
        avatar: { avatarType: 'letter_avatar', avatarUuid: null },
        features: [],
        links: { organizationUrl: `https://${o.slug}.sentry.io`, regionUrl: 'https://us.sentry.io' },
      }));
    return paged(c, visible, state.pageSize);
  });
  // https://docs.sentry.io/api/projects/list-your-projects/
  app.get('/api/0/projects/', (c) => {
    const visible = data.projects.filter((p) => orgsOf(c).includes(p.organization.slug));
    return paged(
      c,
      visible.map((p) => omitKeys(p, PROJECT_GET_ONLY)),
      state.pageSize,
    );
  });
  // https://docs.sentry.io/api/organizations/list-an-organizations-projects/
  app.get('/api/0/organizations/:org/projects/', (c) => {
    const inOrg = data.projects.filter((p) => p.organization.slug === c.req.param('org'));
    return paged(
      c,
      inOrg.map((p) => omitKeys(p, PROJECT_GET_ONLY)),
      state.pageSize,
    );
  });
  app.get(
    '/api/0/projects/:org/:project/',
    withFound(projectOf, notFound, (c, project) => c.json(project)),
  );

  // https://docs.sentry.io/api/events/list-a-projects-issues/
  app.get(
    '/api/0/projects/:org/:project/issues/',
    withFound(projectOf, notFound, (c, project) => {
      const params = new URL(c.req.url).searchParams;
      const statsPeriod = params.get('statsPeriod');
      if (statsPeriod !== null && !['24h', '14d', ''].includes(statsPeriod))
        return c.json(sentryError("Invalid stats_period. Valid choices are '', '24h', and '14d'"), 400);
      const parsed = parseIssueQuery(params.get('query') ?? 'is:unresolved');
      if (typeof parsed === 'string') return c.json(sentryError(parsed), 400);
      const rows = (data.issues.get(project.id) ?? []).filter(
        (issue: SentryIssue) =>
          (parsed.statuses.length === 0 || parsed.statuses.includes(issue.status)) &&
          parsed.dates.every((d) => compare(Date.parse(String(issue[d.field])), d)) &&
          parsed.text.every((t) => String(issue.title).toLowerCase().includes(t)),
      );
      return paged(c, rows.sort(newestFirst('lastSeen')), state.pageSize);
    }),
  );
  // https://docs.sentry.io/api/events/retrieve-an-issue/
  app.get('/api/0/organizations/:org/issues/:issue_id/', (c) => {
    const projects = data.projects.filter((p) => p.organization.slug === c.req.param('org'));
    const issue = projects.flatMap((p) => data.issues.get(p.id) ?? []).find((i) => i.id === c.req.param('issue_id'));
    return issue ? c.json(issue) : notFound(c);
  });

  // https://docs.sentry.io/api/events/list-a-projects-error-events/
  app.get(
    '/api/0/projects/:org/:project/events/',
    withFound(projectOf, notFound, (c, project) => {
      const params = new URL(c.req.url).searchParams;
      const start = params.get('start');
      const end = params.get('end');
      if ((start === null) !== (end === null)) return c.json(sentryError('start and end are both required'), 400);
      const from = start === null ? Number.NEGATIVE_INFINITY : Date.parse(start);
      const to = end === null ? Number.POSITIVE_INFINITY : Date.parse(end);
      if (Number.isNaN(from) || Number.isNaN(to))
        return c.json(sentryError('start and end must be ISO 8601 dates'), 400);
      const full = params.get('full') === 'true' || params.get('full') === '1';
      const rows = (data.events.get(project.id) ?? [])
        .filter((e: SentryEvent) => Date.parse(e.dateCreated) >= from && Date.parse(e.dateCreated) <= to)
        .sort(newestFirst('dateCreated'))
        .map((e) => (full ? e : omitKeys(e, EVENT_FULL_ONLY)));
      return paged(c, rows, state.pageSize);
    }),
  );
  // https://docs.sentry.io/api/events/retrieve-an-event-for-a-project/
  app.get(
    '/api/0/projects/:org/:project/events/:event_id/',
    withFound(projectOf, notFound, (c, project) => {
      const event = (data.events.get(project.id) ?? []).find((e) => e.eventID === c.req.param('event_id'));
      return event ? c.json(event) : notFound(c);
    }),
  );

  // https://docs.sentry.io/api/releases/list-an-organizations-releases/
  app.get('/api/0/organizations/:org/releases/', (c) => {
    if (!orgExists(c)) return notFound(c);
    const prefix = new URL(c.req.url).searchParams.get('query') ?? '';
    const rows = (data.releases.get(c.req.param('org')) ?? []).filter((r) => r.version.startsWith(prefix));
    return paged(c, rows.sort(newestFirst('dateCreated')), state.pageSize);
  });
  app.get('/api/0/organizations/:org/releases/:version/', (c) => {
    const release = (data.releases.get(c.req.param('org')) ?? []).find((r) => r.version === c.req.param('version'));
    return release ? c.json(release) : notFound(c);
  });
  app.notFound((c) => notFound(c));
  return app;
}
