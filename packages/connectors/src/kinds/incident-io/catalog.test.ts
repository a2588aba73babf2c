import { describe, expect, it } from 'vitest';
import { actionParams } from '../../core/catalog.ts';
import { incidentIoCatalog } from './catalog.ts';

const { entities } = incidentIoCatalog;

const params = (entity: string, action: 'list' | 'get') => actionParams(entities, entity, action);

describe('incident.io catalog', () => {
  it('makes every entity listable and searchable, each with a sync spec', () => {
    expect(Object.keys(entities)).toHaveLength(12);
    for (const entity of Object.values(entities)) {
      expect(entity.actions.list, entity.name).toBeDefined();
      expect(entity.searchable, entity.name).toBeDefined();
      expect(entity.sync, entity.name).toBeDefined();
    }
    expect(entities.incidents?.sync).toEqual({ mode: 'incremental', cursorField: 'updated_at' });
    expect(entities.alerts?.sync?.mode).toBe('full_refresh');
    // The catalog lists no get for incident_updates.
    expect(entities.incident_updates?.actions.get).toBeUndefined();
    for (const name of ['incident_timestamps', 'severities', 'custom_fields', 'catalog_types', 'schedules']) {
      expect(entities[name]?.actions.get, name).toBeDefined();
    }
  });

  it('declares only the identifier non-null and instants as datetimes', () => {
    for (const entity of Object.values(entities)) {
      expect(entity.record.id?.nullable, entity.name).toBe(false);
      for (const [name, spec] of Object.entries(entity.record))
        if (name !== 'id') expect(spec.nullable, `${entity.name}.${name}`).toBe(true);
    }
    expect(entities.incidents?.record.updated_at?.type).toBe('datetime');
    expect(entities.alerts?.record.resolved_at?.type).toBe('datetime');
    expect(entities.incidents?.record.mode).toMatchObject({ enum: ['standard', 'retrospective', 'test', 'tutorial'] });
    expect(entities.escalations?.record.status).toMatchObject({
      enum: ['pending', 'triggered', 'acked', 'resolved', 'expired', 'cancelled'],
    });
    expect(Object.keys(entities.incidents?.searchable ?? {})).toHaveLength(26);
  });

  it('bounds page_size per endpoint', () => {
    expect(params('incidents', 'list').safeParse({ page_size: 250, after: '01H' }).success).toBe(true);
    expect(params('incidents', 'list').safeParse({ page_size: 251 }).success).toBe(false);
    expect(params('alerts', 'list').safeParse({ page_size: 50 }).success).toBe(true);
    expect(params('alerts', 'list').safeParse({ page_size: 51 }).success).toBe(false);
    expect(params('escalations', 'list').safeParse({ page_size: 51 }).success).toBe(false);
    expect(params('users', 'list').safeParse({ page_size: 0 }).success).toBe(false);
    expect(params('users', 'list').safeParse({ page_size: 2.5 }).success).toBe(false);
    expect(params('incident_roles', 'list').safeParse({}).success).toBe(true);
    expect(params('incident_roles', 'list').safeParse({ page_size: 10 }).success).toBe(false);
  });

  it('requires id on get and rejects unknown params', () => {
    expect(params('incidents', 'get').safeParse({ id: 'INC-123' }).success).toBe(true);
    expect(params('incidents', 'get').safeParse({}).success).toBe(false);
    expect(params('incident_statuses', 'get').safeParse({ id: 'x', extra: 1 }).success).toBe(false);
  });

  it('takes an API key', () => {
    expect(incidentIoCatalog.credentials.safeParse({ api_key: 'k' }).success).toBe(true);
    expect(incidentIoCatalog.credentials.safeParse({}).success).toBe(false);
    expect(incidentIoCatalog.credentials.safeParse({ api_key: 'k', token: 'x' }).success).toBe(false);
  });
});
