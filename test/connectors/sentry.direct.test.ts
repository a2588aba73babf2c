import { expect, it } from 'vitest';
import type { ConnectorError, UpstreamError } from '../../packages/connectors/src/core/errors.ts';
import { parseLinkHeader } from '../../packages/connectors/src/core/link-header.ts';
import { sentryConnector } from '../../packages/connectors/src/kinds/sentry/connector.ts';
import { startSentry } from '../simulators/sentry/simulator.ts';
import { describeConnectorConformance, FAST_RETRY } from './conformance.ts';
import { failure } from './conformance-kit.ts';
import { echoedCredentials, missingAction, misspeltEntity, retryAfterStorm } from './conformance-presets.ts';

const projects = { entity: 'projects', action: 'list', params: {} };

describeConnectorConformance({
  name: 'Sentry in direct mode',
  definition: sentryConnector,
  start: () => startSentry({ size: 12 }),
  settings: { retry: FAST_RETRY },
  minDerivedCases: 12,
  unsupported: [misspeltEntity('issue', 'issues'), missingAction('releases', 'create', 'get')],
  storms: [retryAfterStorm(projects)],
  auth: { request: projects },
  echo: echoedCredentials(projects, ['auth_token'], (planted) => ({
    status: 400,
    body: { detail: `Invalid request for token ${planted}` },
  })),
  replication: {},
  // releases: the first top-level entity other than projects, several pages from start_date.
  resume: [{ entity: 'releases', minPages: 3 }],
  specific: (h) => {
    it('follows the Link header cursor until results="false"', async () => {
      const example = h.sim().examples.find((e) => e.entity === 'issues' && e.action === 'list')!;
      const seen: string[] = [];
      let params: Record<string, unknown> | null = example.params;
      let pages = 0;
      while (params) {
        const body = await h.json('issues', 'list', params);
        seen.push(...(body.data as { id: string }[]).map((r) => r.id));
        const cursor = Object.values(body.meta ?? {})[0];
        params = typeof cursor === 'string' ? { ...example.params, cursor } : null;
        pages++;
      }
      expect(pages).toBeGreaterThan(1);
      expect(new Set(seen).size).toBe(seen.length);
    });

    it('parses Sentry Link headers', () => {
      const links = parseLinkHeader(
        '<https://sentry.io/api/0/projects/?&cursor=0:0:1>; rel="previous"; results="false"; cursor="0:0:1", ' +
          '<https://sentry.io/api/0/projects/?&cursor=0:100:0>; rel="next"; results="true"; cursor="0:100:0"',
      );
      expect(links.previous).toEqual({
        url: 'https://sentry.io/api/0/projects/?&cursor=0:0:1',
        results: false,
        cursor: '0:0:1',
      });
      expect(links.next?.cursor).toBe('0:100:0');
      expect(links.next?.results).toBe(true);
    });

    it('honours the wait in a Sentry throttle body when Retry-After is absent', async () => {
      h.sim().faults.add({
        status: 429,
        count: 1,
        body: { detail: 'Request was throttled. Expected available in 1 seconds.' },
      });
      const started = Date.now();
      const result = await h.connector().execute(projects);
      expect(result.type).toBe('json');
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    });

    it('path-escapes user-supplied ids and refuses dot segments', async () => {
      const organization_slug = String(h.sim().config.organization_slug);
      const escaped = (await failure(
        h.connector().execute({
          entity: 'releases',
          action: 'get',
          params: { organization_slug, version: '../../projects' },
        }),
      )) as UpstreamError;
      expect(escaped.code).toBe('upstream_not_found');
      for (const version of ['..', '.', '%2e%2E']) {
        const error: ConnectorError = await failure(
          h.connector().execute({ entity: 'releases', action: 'get', params: { organization_slug, version } }),
        );
        expect(error.code, version).toBe('invalid_params');
        expect(error.errors[0]?.path).toBe('/params/version');
      }
    });
  },
});
