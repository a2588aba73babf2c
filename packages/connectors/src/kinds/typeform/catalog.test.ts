import { describe, expect, it } from 'vitest';
import { actionParams } from '../../core/catalog.ts';
import { typeformCatalog } from './catalog.ts';

const { entities } = typeformCatalog;

const params = (entity: string, action: 'list' | 'get') => actionParams(entities, entity, action);

describe('Typeform catalog', () => {
  it('has the six entities of its contract, searchable, nullable except the identifier', () => {
    expect(Object.keys(entities).sort()).toEqual(['forms', 'images', 'responses', 'themes', 'webhooks', 'workspaces']);
    for (const entity of Object.values(entities)) {
      expect(entity.searchable, entity.name).toBeDefined();
      expect(entity.sync, entity.name).toBeDefined();
      for (const [name, spec] of Object.entries(entity.record)) {
        expect(spec.nullable, `${entity.name}.${name}`).toBe(name !== entity.recordKey);
      }
      for (const [name, spec] of Object.entries(entity.searchable ?? {})) {
        expect(entity.record[name], `${entity.name}.${name}`).toEqual(spec);
      }
    }
  });

  it('declares the searchable fields of its contract', () => {
    const count = (name: string) => Object.keys(entities[name]?.searchable ?? {}).length;
    expect(count('forms')).toBe(14);
    expect(entities.forms?.searchable?.self).toBeUndefined();
    expect(count('responses')).toBe(12);
    expect(count('webhooks')).toBe(8);
    expect(count('workspaces')).toBe(7);
    expect(count('images')).toBe(8);
    expect(entities.images?.searchable?.upload_source).toBeUndefined();
    expect(count('themes')).toBe(12);
  });

  it('reads responses and webhooks per form, responses incrementally on submitted_at', () => {
    expect(entities.responses?.recordKey).toBe('response_id');
    expect(entities.responses?.sync).toEqual({
      mode: 'incremental',
      cursorField: 'submitted_at',
      parent: { entity: 'forms', param: 'form_id', from: 'id' },
    });
    expect(entities.webhooks?.sync).toEqual({
      mode: 'full_refresh',
      parent: { entity: 'forms', param: 'form_id', from: 'id' },
    });
    expect(entities.responses?.record.submitted_at?.type).toBe('datetime');
  });

  it('validates parameters', () => {
    expect(params('forms', 'list').safeParse({ page: 1, page_size: 200 }).success).toBe(true);
    expect(params('forms', 'list').safeParse({ page: 0 }).success).toBe(false);
    expect(params('forms', 'list').safeParse({ page_size: 201 }).success).toBe(false);
    expect(params('forms', 'get').safeParse({}).success).toBe(false);
    const responses = params('responses', 'list');
    expect(
      responses.safeParse({ form_id: 'abc', since: '2024-01-01T00:00:00Z', sort: 'submitted_at,asc', completed: true })
        .success,
    ).toBe(true);
    expect(responses.safeParse({ since: '2024-01-01T00:00:00Z' }).success).toBe(false);
    expect(responses.safeParse({ form_id: 'abc', page_size: 1001 }).success).toBe(false);
    expect(responses.safeParse({ form_id: 'abc', since: 'yesterday' }).success).toBe(false);
    expect(responses.safeParse({ form_id: 'abc', sort: 'submitted_at' }).success).toBe(false);
    expect(params('webhooks', 'list').safeParse({ form_id: 'abc' }).success).toBe(true);
    expect(params('webhooks', 'list').safeParse({}).success).toBe(false);
    expect(params('images', 'list').safeParse({ page: 1 }).success).toBe(false);
  });

  it('accepts a personal access token or complete OAuth credentials', () => {
    const { credentials } = typeformCatalog;
    const oauth = { access_token: 'a', refresh_token: 'r', client_id: 'c', client_secret: 's' };
    expect(credentials.safeParse({ access_token: 'tfp_x' }).success).toBe(true);
    expect(credentials.safeParse(oauth).success).toBe(true);
    expect(credentials.safeParse({ access_token: 'a', refresh_token: 'r' }).success).toBe(false);
    expect(credentials.safeParse({ refresh_token: 'r', client_id: 'c', client_secret: 's' }).success).toBe(false);
    expect(credentials.safeParse({}).success).toBe(false);
  });
});
