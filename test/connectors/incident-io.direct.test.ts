import { expect, it } from 'vitest';
import { incidentIoConnector } from '../../packages/connectors/src/kinds/incident-io/connector.ts';
import { startIncidentIo, tooManyRequests } from '../simulators/incident-io/simulator.ts';
import { describeConnectorConformance, FAST_RETRY } from './conformance.ts';
import { failure } from './conformance-kit.ts';
import { echoedCredentials, missingAction, misspeltEntity, retryAfterStorm } from './conformance-presets.ts';

const users = { entity: 'users', action: 'list', params: {} };
// The page_size limits incident.io documents per paginated list.
const bounds = [
  { entity: 'incidents', max: 250 },
  { entity: 'alerts', max: 50 },
  { entity: 'escalations', max: 50 },
  { entity: 'users', max: 250 },
  { entity: 'incident_updates', max: 250 },
  { entity: 'schedules', max: 250 },
];

describeConnectorConformance({
  name: 'Incident-Io in direct mode',
  definition: incidentIoConnector,
  // 300 incidents: replication reads 250 per page, alerts and escalations 50 per page, so each spans pages.
  start: () => startIncidentIo({ size: 300 }),
  invalid: [
    ...bounds.flatMap(({ entity, max }) =>
      [max + 1, 0, 2.5].map((page_size) => ({
        entity,
        action: 'list',
        params: { page_size },
        path: '/params/page_size',
        only: true,
      })),
    ),
    // The unpaginated lists take no params at all.
    { entity: 'incident_roles', action: 'list', params: { page_size: 5 }, path: '/params/page_size', only: true },
  ],
  unsupported: [misspeltEntity('incident', 'incidents'), missingAction('incident_updates', 'get', 'list')],
  storms: [
    retryAfterStorm({ entity: 'alerts', action: 'list', params: {} }, '/v2/alerts'),
    {
      label: '429 honouring the body rate_limit.retry_after',
      fault: { status: 429, count: 3, pathIncludes: '/v1/severities', body: tooManyRequests(0) },
      request: { entity: 'severities', action: 'list', params: {} },
      settings: { retry: FAST_RETRY },
    },
  ],
  auth: { request: users },
  echo: echoedCredentials(users, ['api_key'], (planted) => ({
    status: 422,
    pathIncludes: '/v2/users',
    body: { type: 'validation_error', key: planted },
  })),
  replication: {
    // incidents are read from start_date, which leaves some out.
    verify: (sim) => expect(sim.expectedKeys('incidents').length).toBeLessThan(sim.data.incidents.length),
  },
  resume: [{ entity: 'alerts', minPages: 4 }],
  specific: (h) => {
    it.each(bounds)('accepts $entity page_size at its documented maximum $max', async ({ entity, max }) => {
      const ok = await h.connector().execute({ entity, action: 'list', params: { page_size: max } });
      expect(ok.type).toBe('json');
    });

    it('pages incidents with after until the last page, and maps slack_* to the neutral chat_* fields', async () => {
      const connector = h.connector();
      const ids: string[] = [];
      let after: unknown;
      for (let guard = 0; guard < 10; guard++) {
        const result = await connector.execute({
          entity: 'incidents',
          action: 'list',
          params: { page_size: 120, ...(after ? { after } : {}) },
        });
        if (result.type !== 'json') throw new Error('expected json');
        const data = result.body.data as Record<string, unknown>[];
        expect(data[0]?.chat_channel_name).toBe(data[0]?.slack_channel_name);
        ids.push(...data.map((r) => String(r.id)));
        expect(result.body.meta?.page_size).toBe(120);
        after = result.body.meta?.after;
        if (after === null) break;
      }
      expect(ids).toEqual(h.sim().data.incidents.map((r) => r.id));
    });

    it('gets an incident by its numeric reference', async () => {
      const incident = h.sim().data.incidents[3]!;
      const number = String(incident.reference).replace('INC-', '');
      const result = await h.connector().execute({ entity: 'incidents', action: 'get', params: { id: number } });
      if (result.type !== 'json') throw new Error('expected json');
      expect((result.body.data as { id: string }).id).toBe(incident.id);
    });

    it('maps an unknown id to upstream_not_found', async () => {
      const error = await failure(
        h.connector().execute({ entity: 'alerts', action: 'get', params: { id: 'nope/../x' } }),
      );
      expect(error.code).toBe('upstream_not_found');
    });
  },
});
