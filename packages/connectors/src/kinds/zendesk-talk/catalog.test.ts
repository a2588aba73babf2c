import { describe, expect, it } from 'vitest';
import { actionParams } from '../../core/catalog.ts';
import { zendeskTalkCatalog } from './catalog.ts';

const { entities } = zendeskTalkCatalog;

const params = (entity: string, action: 'list' | 'get') => actionParams(entities, entity, action);

describe('Zendesk Talk catalog', () => {
  it('has the entities of its contract, all listable and searchable, every field nullable', () => {
    // The entity names the catalog lists.
    const specified = `account_overview addresses agents_activity agents_overview call_legs calls current_queue_activity
      greeting_categories greetings ivrs phone_numbers`;
    expect(Object.keys(entities).sort()).toEqual(specified.split(/\s+/).sort());
    for (const entity of Object.values(entities)) {
      expect(entity.actions.list, entity.name).toBeDefined();
      expect(entity.searchable, entity.name).toBeDefined();
      expect(entity.sync, entity.name).toBeDefined();
      expect(entity.record[entity.recordKey], entity.name).toBeDefined();
      for (const [name, spec] of Object.entries(entity.record))
        expect(spec.nullable, `${entity.name}.${name}`).toBe(true);
      for (const [name, spec] of Object.entries(entity.searchable ?? {})) {
        expect(entity.record[name], `${entity.name}.${name}`).toEqual(spec);
      }
    }
  });

  it('replicates calls and legs incrementally on updated_at, the rest by full refresh', () => {
    expect(entities.calls?.sync).toEqual({ mode: 'incremental', cursorField: 'updated_at' });
    expect(entities.call_legs?.sync).toEqual({ mode: 'incremental', cursorField: 'updated_at' });
    expect(entities.calls?.record.updated_at?.type).toBe('datetime');
    expect(entities.phone_numbers?.sync).toEqual({ mode: 'full_refresh' });
  });

  it('declares the searchable fields of its contract', () => {
    expect(entities.phone_numbers?.searchable?.brand_id).toBeUndefined();
    expect(Object.keys(entities.phone_numbers?.searchable ?? {})).toHaveLength(30);
    expect(Object.keys(entities.agents_activity?.searchable ?? {})).toHaveLength(26);
    expect(Object.keys(entities.agents_overview?.searchable ?? {})).toHaveLength(23);
    expect(entities.agents_activity?.searchable?.agent_state).toMatchObject({
      enum: ['online', 'offline', 'away', 'transfers_only'],
    });
    expect(entities.greetings?.record.id?.type).toBe('string');
  });

  it('validates parameters', () => {
    expect(params('phone_numbers', 'list').safeParse({}).success).toBe(true);
    expect(params('phone_numbers', 'list').safeParse({ page: 2 }).success).toBe(false);
    expect(params('phone_numbers', 'get').safeParse({ phone_number_id: 12 }).success).toBe(true);
    expect(params('phone_numbers', 'get').safeParse({ phone_number_id: '12' }).success).toBe(false);
    expect(params('phone_numbers', 'get').safeParse({}).success).toBe(false);
    expect(params('greetings', 'get').safeParse({ greeting_id: 'voicemail_en' }).success).toBe(true);
    expect(params('ivrs', 'get').safeParse({ ivr_id: 0 }).success).toBe(false);
    expect(params('calls', 'list').safeParse({ start_time: 1704067200 }).success).toBe(true);
    expect(params('calls', 'list').safeParse({ start_time: -1 }).success).toBe(false);
  });

  it('accepts exactly the OAuth and token credential methods', () => {
    const { credentials } = zendeskTalkCatalog;
    expect(credentials.safeParse({ access_token: 'a' }).success).toBe(true);
    expect(
      credentials.safeParse({ access_token: 'a', refresh_token: 'r', client_id: 'c', client_secret: 's' }).success,
    ).toBe(true);
    expect(credentials.safeParse({ email: 'agent@example.com', api_token: 't' }).success).toBe(true);
    expect(credentials.safeParse({ email: 'agent@example.com' }).success).toBe(false);
    expect(credentials.safeParse({ email: 'not-an-email', api_token: 't' }).success).toBe(false);
    expect(credentials.safeParse({ access_token: 'a', api_token: 't' }).success).toBe(false);
    expect(credentials.safeParse({ refresh_token: 'r' }).success).toBe(false);
  });

  it('requires start_date at midnight UTC and a valid subdomain', () => {
    const { replicationConfig, config } = zendeskTalkCatalog;
    expect(replicationConfig.safeParse({ start_date: '2024-01-01T00:00:00Z' }).success).toBe(true);
    for (const bad of [
      '2024-01-01T01:00:00Z',
      '2024-01-01T00:00:00+00:00',
      '2024-01-01',
      '2024-02-30T00:00:00Z',
      '2024-01-01T00:00:00.000Z',
    ]) {
      expect(replicationConfig.safeParse({ start_date: bad }).success, bad).toBe(false);
    }
    expect(replicationConfig.safeParse({}).success).toBe(false);
    expect(config.safeParse({ subdomain: 'acme-support' }).success).toBe(true);
    for (const bad of ['Acme', '-acme', 'acme.evil.com', '', 'a'.repeat(64)]) {
      expect(config.safeParse({ subdomain: bad }).success, bad).toBe(false);
    }
    expect(config.safeParse({}).success).toBe(false);
  });
});
