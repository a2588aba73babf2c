import { expect } from 'vitest';
import type { TestPlatform } from './platform.ts';

/** Creates a connector through the API, expecting 201, and returns its id. */
export async function createConnector(platform: TestPlatform, body: Record<string, unknown>): Promise<string> {
  const response = await platform.call('POST', '/api/v1/integrations/connectors', body);
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { connector_id: string }).connector_id;
}
