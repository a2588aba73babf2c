import {
  listAnOrganization_sProjects,
  listAnOrganization_sReleases,
  listAProject_sIssues,
  retrieveAnIssue,
  retrieveAProject,
} from '@sentry/api';
import { beforeAll, describe, expect, it } from 'vitest';
import { simulatorForAll } from '../harness/simulator-for-all.ts';
import { startSentrySimulator } from '../simulators/sentry/simulator.ts';

/** The next-page cursor of a Sentry `Link` header, when it says there are results. */
function nextCursor(response: Response): string | undefined {
  const next = (response.headers.get('link') ?? '').split(',').find((part) => part.includes('rel="next"'));
  if (!next?.includes('results="true"')) return undefined;
  return /cursor="([^"]+)"/.exec(next)?.[1];
}

/**
 * Sentry's official generated API client (@sentry/api) against our Sentry simulator: list with `Link`-header
 * cursors, get, and the 404/401 answers the client surfaces as `error` with the response status.
 */
describe('@sentry/api (official client) against the Sentry simulator', () => {
  const sim = simulatorForAll(() =>
    startSentrySimulator({ projectsPerOrganization: 5, issuesPerProject: 9, pageSize: 2 }),
  );
  let baseUrl: string;
  const auth = () => sim.token;
  beforeAll(() => {
    baseUrl = new URL(sim.url).origin;
  });

  it("pages an organization's projects by the Link header's cursor", async () => {
    const slugs: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const { data, error, response } = await listAnOrganization_sProjects({
        baseUrl,
        auth,
        path: { organization_id_or_slug: sim.organization },
        ...(cursor ? { query: { cursor } } : {}),
      });
      expect(error).toBeUndefined();
      for (const project of data ?? []) slugs.push(project.slug);
      cursor = nextCursor(response);
      pages++;
    } while (cursor);
    const expected = sim.data.projects.filter((p) => p.organization.slug === sim.organization).map((p) => p.slug);
    expect(pages).toBeGreaterThan(1);
    expect(slugs.sort()).toEqual(expected.sort());
  });

  it('gets a project, lists its issues and gets one of them, and lists releases', async () => {
    const project = sim.data.projects.find((p) => p.organization.slug === sim.organization)!;
    const path = { organization_id_or_slug: sim.organization, project_id_or_slug: project.slug };
    const detail = await retrieveAProject({ baseUrl, auth, path });
    expect(detail.data?.slug).toBe(project.slug);
    const issues = await listAProject_sIssues({ baseUrl, auth, path, query: { query: '' } });
    expect(issues.error).toBeUndefined();
    const first = issues.data?.[0];
    expect(first).toBeDefined();
    const issue = await retrieveAnIssue({
      baseUrl,
      auth,
      path: { organization_id_or_slug: sim.organization, issue_id: String(first!.id) },
    });
    expect(issue.data?.id).toBe(first!.id);
    const releases = await listAnOrganization_sReleases({
      baseUrl,
      auth,
      path: { organization_id_or_slug: sim.organization },
    });
    expect(releases.response.status).toBe(200);
    expect(Array.isArray(releases.data)).toBe(true);
  });

  it('answers an unknown project with 404 and a Sentry error body', async () => {
    const missing = await retrieveAProject({
      baseUrl,
      auth,
      path: { organization_id_or_slug: sim.organization, project_id_or_slug: 'no-such-project' },
    });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ detail: expect.any(String) });
  });

  it('answers a wrong token with 401', async () => {
    const refused = await listAnOrganization_sProjects({
      baseUrl,
      auth: 'sntrys_wrong',
      path: { organization_id_or_slug: sim.organization },
    });
    expect(refused.response.status).toBe(401);
  });
});
