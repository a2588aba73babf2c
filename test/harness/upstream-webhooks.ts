import { expect } from 'vitest';
import type { SimulatedWebhooks } from '../simulators/kit/webhooks.ts';
import type { TestPlatform } from './platform.ts';

/**
 * Sets a fresh secret of the simulator's vendor as the connector's webhook secret (answered 200) and subscribes the
 * simulator's sender to the connector's webhook URL with it; `token` acts for another organization. The harness's
 * API listens on a random port, so the URL comes from it rather than PUBLIC_BASE_URL.
 */
export async function subscribeUpstreamWebhooks(
  platform: TestPlatform,
  webhooks: SimulatedWebhooks,
  connectorId: string,
  token?: string,
): Promise<string> {
  const secret = webhooks.newSecret();
  const patched = await platform.call(
    'PATCH',
    `/api/v1/integrations/connectors/${connectorId}`,
    { webhook_secret: secret },
    token === undefined ? {} : { authorization: `Bearer ${token}` },
  );
  expect(patched.status, await patched.clone().text()).toBe(200);
  webhooks.sender.subscribe(`${platform.url}/api/v1/integrations/connectors/${connectorId}/webhooks`, secret);
  return secret;
}
