import { FaultInjector } from '../kit/faults.ts';
import { kindOptions, type SimulatorHandle, type SimulatorOptions, simulatorHandle } from '../kit/fixture.ts';
import { listen, type RunningServer } from '../kit/server.ts';
import type { SimulatedWebhooks } from '../kit/webhooks.ts';
import { createSentryApp } from './app.ts';
import { generateSentryData, type SentryData, type SentryDataOptions } from './data.ts';
import { sentryWebhooks } from './webhooks.ts';

export interface SentrySimulatorOptions extends SentryDataOptions {
  token?: string;
  /** A user auth token that sees every organization (the organization token sees one). */
  userToken?: string;
  port?: number;
  /** Records per page (Sentry: 100). */
  pageSize?: number;
}

export interface SentrySimulator extends RunningServer {
  readonly token: string;
  /** A user auth token: sees every organization. */
  readonly userToken: string;
  /** The organization the token belongs to. */
  readonly organization: string;
  readonly data: SentryData;
  readonly faults: FaultInjector;
  readonly webhooks: SimulatedWebhooks;
}

export async function startSentrySimulator(options: SentrySimulatorOptions = {}): Promise<SentrySimulator> {
  const token = options.token ?? 'sntrys_test_token_0123456789abcdef';
  const userToken = options.userToken ?? 'sntryu_test_user_token_0123456789abcdef';
  const data = generateSentryData(options);
  const faults = new FaultInjector();
  const organization = data.organizations[0]!.slug;
  const app = createSentryApp({ data, faults, token, userToken, organization, pageSize: options.pageSize ?? 100 });
  const server = await listen(app, options.port ?? 0);
  const url = `${server.url}/api/0`;
  return { ...server, url, token, userToken, organization, data, faults, webhooks: sentryWebhooks(data, url) };
}

/** The generic handle (kit/fixture.ts) over the Sentry simulator. */
export async function startSentry(options: SimulatorOptions = {}): Promise<SimulatorHandle> {
  const startDate = '2024-01-01T00:00:00Z';
  const since = Date.parse(startDate);
  const sim = await startSentrySimulator({ ...kindOptions(options, 'issuesPerProject'), pageSize: 4 });
  const organization = sim.organization;
  const projects = sim.data.projects.filter((p) => p.organization.slug === organization);
  const project = projects[0]!;
  const issue = sim.data.issues.get(project.id)![0]!;
  const event = sim.data.events.get(project.id)![0]!;
  const release = sim.data.releases.get(organization)![0]!;
  const inOrg = <T>(byProject: Map<string, T[]>) => projects.flatMap((p) => byProject.get(p.id) ?? []);
  return simulatorHandle(sim, {
    connectorType: 'Sentry',
    credentials: { auth_token: sim.token },
    badCredentials: { auth_token: 'sntrys_wrong_token_0000000000000000' },
    config: { organization_slug: organization },
    startDate,
    examples: [
      { entity: 'projects', action: 'list', params: {} },
      { entity: 'projects', action: 'get', params: { organization_slug: organization, project_slug: project.slug } },
      {
        entity: 'project_detail',
        action: 'get',
        params: { organization_slug: organization, project_slug: project.slug },
      },
      {
        entity: 'issues',
        action: 'list',
        params: { organization_slug: organization, project_slug: project.slug, query: '', statsPeriod: '14d' },
      },
      { entity: 'issues', action: 'get', params: { organization_slug: organization, issue_id: issue.id } },
      {
        entity: 'events',
        action: 'list',
        params: { organization_slug: organization, project_slug: project.slug, full: 'true' },
      },
      {
        entity: 'events',
        action: 'get',
        params: { organization_slug: organization, project_slug: project.slug, event_id: event.eventID },
      },
      {
        entity: 'releases',
        action: 'list',
        params: { organization_slug: organization, query: release.version.slice(0, 6) },
      },
      { entity: 'releases', action: 'get', params: { organization_slug: organization, version: release.version } },
    ],
    expectedKeys: (entity) => {
      switch (entity) {
        case 'projects':
          return projects.map((p) => p.id);
        case 'issues':
          return inOrg(sim.data.issues)
            .filter((i) => Date.parse(i.lastSeen) >= since)
            .map((i) => i.id);
        case 'events':
          return inOrg(sim.data.events)
            .filter((e) => Date.parse(e.dateCreated) >= since)
            .map((e) => e.id);
        case 'releases':
          return (sim.data.releases.get(organization) ?? []).map((r) => String(r.id));
        default:
          throw new Error(`Sentry has no searchable entity '${entity}'`);
      }
    },
  });
}
