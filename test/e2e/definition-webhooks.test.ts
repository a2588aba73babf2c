import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForEntity } from '../harness/connector-status.ts';
import { createConnector } from '../harness/create-connector.ts';
import { ALL_ENTITIES_AT_ONCE, eventually, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { tasklaneDefinition } from '../simulators/tasklane/definition.ts';
import { startTasklane, type TasklaneSimulator } from '../simulators/tasklane/simulator.ts';

/**
 * A kind defined at run time whose definition says how its vendor signs webhooks (docs/definitions.md, "Webhooks
 * from the upstream"): a signed event is accepted on the connector's webhook route and the record it names is read
 * again from the upstream, as for the built-in kinds; a wrong signature is refused and changes nothing.
 */
describe('upstream webhooks of a defined kind', () => {
  let upstream: TasklaneSimulator;
  let platform: TestPlatform;
  let connectorId: string;
  const secret = 'tasklane-webhook-secret';

  beforeAll(async () => {
    upstream = await startTasklane({ tasks: 20, people: 3 });
    platform = await startTestPlatform({
      env: { ...ALL_ENTITIES_AT_ONCE, CONNECTOR_EGRESS_ALLOW: new URL(upstream.url).host },
    });
    const definition = {
      ...tasklaneDefinition(upstream.url),
      webhooks: {
        signature: {
          header: 'X-Tasklane-Signature',
          algorithm: 'sha256',
          encoding: 'hex',
          prefix: 'v1=',
          signed: '{timestamp}.{body}',
          timestamp_header: 'X-Tasklane-Timestamp',
        },
        events: { entity_at: 'object', key_at: 'data.id', id_at: 'event_id', entities: { task: 'tasks' } },
      },
    };
    const posted = await platform.call('POST', '/api/v1/connector-definitions', definition);
    expect(posted.status, await posted.clone().text()).toBe(201);
    connectorId = await createConnector(platform, {
      customer_name: 'acme',
      connector_type: 'Tasklane',
      name: 'hooks',
      credentials: { api_key: upstream.apiKey },
      replication_config: { start_date: '2024-01-01T00:00:00Z' },
    });
    await waitForEntity(platform, connectorId, 'tasks', (s) => s.status === 'ready' && !s.running);
    const patched = await platform.call('PATCH', `/api/v1/integrations/connectors/${connectorId}`, {
      webhook_secret: secret,
    });
    expect(patched.status, await patched.clone().text()).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await platform?.close();
    await upstream?.close();
  });

  const send = (body: string, key = secret) => {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = createHmac('sha256', key).update(`${timestamp}.${body}`).digest('hex');
    return fetch(`${platform.url}/api/v1/integrations/connectors/${connectorId}/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-tasklane-signature': `v1=${signature}`,
        'x-tasklane-timestamp': timestamp,
      },
      body,
    });
  };
  const titleOf = async (id: number) => {
    const response = await platform.call('POST', `/api/v1/integrations/connectors/${connectorId}/execute`, {
      entity: 'tasks',
      action: 'search',
      params: { query: { filter: { eq: { id } } } },
    });
    return ((await response.json()) as { data: { title: string }[] }).data[0]?.title;
  };

  it('says on the connector that webhooks are configured', async () => {
    const view = (await (await platform.call('GET', `/api/v1/integrations/connectors/${connectorId}`)).json()) as {
      webhooks: string;
    };
    expect(view.webhooks).toBe('configured');
  });

  it('re-reads the record a signed event names, and the copy shows the upstream’s edit', async () => {
    upstream.edit(7, { title: 'Task 7: edited, then announced' });
    const response = await send(JSON.stringify({ event_id: 'evt-1', object: 'task', data: { id: 7 } }));
    expect(response.status, await response.clone().text()).toBe(202);
    await eventually(async () => ((await titleOf(7)) === 'Task 7: edited, then announced' ? true : undefined), 30_000);
    expect(upstream.requests.some((r) => r === 'GET /v3/tasks/7')).toBe(true);
  });

  it('refuses an event signed with another secret, and reads nothing for it', async () => {
    upstream.edit(8, { title: 'Task 8: never announced' });
    const before = upstream.requests.length;
    const response = await send(JSON.stringify({ event_id: 'evt-2', object: 'task', data: { id: 8 } }), 'not-it');
    expect(response.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(upstream.requests.slice(before).filter((r) => r.includes('/tasks/8'))).toEqual([]);
    expect(await titleOf(8)).not.toBe('Task 8: never announced');
  });
});
