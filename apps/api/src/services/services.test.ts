import { type Connector, ConnectorError, findConnectorDefinition, UpstreamError } from '@conduit/connectors';
import type { ConnectorRow, SyncStateRow } from '@conduit/db';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../problem.ts';
import { connectorView, searchableEntities } from './connector-view.ts';
import { connectorExists, requireDefinition } from './create-connector.ts';
import { checkCredentials } from './credential-check.ts';

const orb = findConnectorDefinition('Orb')!.catalog;

const row = {
  id: 'c-1',
  organization_id: 'org',
  connector_type: 'Orb',
  customer_name: 'acme',
  name: 'billing',
  credentials_ciphertext: 'secret-ciphertext',
  webhook_secret_ciphertext: null,
  config: {},
  replication_config: { start_date: '2024-01-01T00:00:00Z' },
  created_at: new Date('2024-01-01T00:00:00Z'),
  updated_at: new Date('2024-01-02T00:00:00Z'),
} as unknown as ConnectorRow;

describe('connectorView', () => {
  it('shows every searchable entity (pending when it has no state yet) and never the credentials', () => {
    const states = [
      {
        entity: 'customers',
        status: 'ready',
        running: false,
        last_success_at: new Date('2024-01-03T00:00:00Z'),
        last_full_sync_at: new Date('2024-01-02T00:00:00Z'),
        record_count: 5,
        error: null,
      },
    ] as unknown as SyncStateRow[];
    const view = connectorView(row, orb, states);
    expect(Object.keys(view.entities).sort()).toEqual(searchableEntities(orb).sort());
    expect(view.entities.customers).toEqual({
      status: 'ready',
      running: false,
      last_success_at: '2024-01-03T00:00:00.000Z',
      last_full_sync_at: '2024-01-02T00:00:00.000Z',
      record_count: 5,
      error: null,
    });
    expect(view.credentials_status).toBe('ok');
    expect(view.entities.invoices?.status).toBe('pending');
    expect(JSON.stringify(view)).not.toContain('secret-ciphertext');
  });
});

describe('requireDefinition and connectorExists', () => {
  it('finds a kind case-insensitively and names /connector_type with a suggestion otherwise', () => {
    expect(requireDefinition('orb').catalog.connectorType).toBe('Orb');
    const error = (() => {
      try {
        requireDefinition('Orbb');
      } catch (e) {
        return e as ApiError;
      }
    })();
    expect(error?.status).toBe(400);
    expect(error?.errors[0]?.path).toBe('/connector_type');
    expect(error?.errors[0]?.message).toContain('Orb');
  });

  it('a duplicate identity is a 409 naming the existing connector', () => {
    const error = connectorExists('c-9');
    expect(error.status).toBe(409);
    expect(error.code).toBe('connector_exists');
    expect(error.errors).toEqual([{ path: '/name', message: 'already used by connector c-9' }]);
  });
});

describe('checkCredentials', () => {
  const connectorFailingWith = (error: unknown): Connector => ({
    connectorType: 'Orb',
    execute: async () => {
      throw error;
    },
    read: () => {
      throw new Error('not used');
    },
    prepareWrite: async () => undefined,
  });

  it('turns an upstream rejection into a 400 naming /credentials', async () => {
    const rejected = new UpstreamError('upstream_auth_failed', 'no', 401, null);
    const error = await checkCredentials(connectorFailingWith(rejected), orb).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).errors[0]?.path).toBe('/credentials');
  });

  it('lets an upstream outage through (a 502, not the caller’s fault) and accepts a 404 probe', async () => {
    const outage = new UpstreamError('upstream_error', 'down', 503, null);
    await expect(checkCredentials(connectorFailingWith(outage), orb)).rejects.toBe(outage);
    const missing = new ConnectorError('upstream_not_found', 'gone');
    await expect(checkCredentials(connectorFailingWith(missing), orb)).resolves.toBeUndefined();
  });
});
