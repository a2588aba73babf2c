import { describe, expect, it } from 'vitest';
import { actionParams } from '../../core/catalog.ts';
import { PROJECT_LIST_FIELDS, sentryCatalog } from './catalog.ts';

const { entities } = sentryCatalog;

const params = (entity: string, action: 'list' | 'get') => actionParams(entities, entity, action);

describe('Sentry catalog', () => {
  it("adds the seed system's project_detail get: live only, the project's full record", () => {
    const detail = entities.project_detail!;
    expect(Object.keys(detail.actions)).toEqual(['get']);
    expect(detail.searchable).toBeUndefined();
    expect(Object.keys(detail.record)).toEqual(Object.keys(entities.projects!.record));
  });

  it('has the four entities of its contract with list, get, search; nullable except the identifier', () => {
    expect(Object.keys(entities).sort()).toEqual(['events', 'issues', 'project_detail', 'projects', 'releases']);
    for (const entity of Object.values(entities).filter((e) => e.name !== 'project_detail')) {
      expect(Object.keys(entity.actions).sort(), entity.name).toEqual(['get', 'list']);
      expect(entity.searchable, entity.name).toBeDefined();
      expect(entity.sync, entity.name).toBeDefined();
      for (const [name, spec] of Object.entries(entity.record)) {
        expect(spec.nullable, `${entity.name}.${name}`).toBe(name !== 'id');
      }
    }
  });

  it('makes the project record the union of the list and get shapes', () => {
    const record = entities.projects?.record ?? {};
    expect(PROJECT_LIST_FIELDS).toHaveLength(38);
    for (const name of PROJECT_LIST_FIELDS) expect(record[name], name).toBeDefined();
    expect(Object.keys(record)).toHaveLength(38 + 41);
    expect(record.securityToken).toBeDefined();
    expect(PROJECT_LIST_FIELDS).not.toContain('securityToken');
  });

  it('declares the searchable fields of its contract, with the extra fields typed', () => {
    const projects = entities.projects?.searchable ?? {};
    expect(Object.keys(projects)).toHaveLength(26);
    expect(projects.hasCustomMetrics?.type).toBe('boolean');
    expect(projects.hasFlags).toBeUndefined();
    expect(entities.issues?.searchable).toEqual(entities.issues?.record);
    expect(entities.issues?.searchable?.status).toMatchObject({ enum: ['resolved', 'unresolved', 'ignored'] });
    expect(entities.issues?.searchable?.lastSeen?.type).toBe('datetime');
    expect(entities.events?.searchable?.occurrence?.type).toBe('string');
    expect(entities.events?.searchable?.['event.type']?.type).toBe('string');
    expect(Object.keys(entities.releases?.searchable ?? {})).toContain('versionInfo');
    expect(entities.releases?.record.id?.type).toBe('integer');
  });

  it("replicates issues and events per project (in the project's organization), incrementally", () => {
    const parent = {
      entity: 'projects',
      param: 'project_slug',
      from: 'slug',
      extra: { organization_slug: 'organization.slug' },
    };
    expect(entities.issues?.sync).toEqual({ mode: 'incremental', cursorField: 'lastSeen', parent });
    expect(entities.events?.sync).toEqual({ mode: 'incremental', cursorField: 'dateCreated', parent });
    expect(entities.projects?.sync?.mode).toBe('full_refresh');
    expect(entities.releases?.sync?.mode).toBe('full_refresh');
  });

  it('validates parameters', () => {
    expect(params('projects', 'list').safeParse({}).success).toBe(true);
    expect(params('projects', 'list').safeParse({ organization_slug: 'acme' }).success).toBe(false);
    expect(params('projects', 'get').safeParse({ organization_slug: 'acme', project_slug: 'web' }).success).toBe(true);
    expect(params('projects', 'get').safeParse({ organization_slug: 'acme' }).success).toBe(false);
    expect(params('projects', 'get').safeParse({ organization_slug: '../admin', project_slug: 'web' }).success).toBe(
      false,
    );
    const issues = params('issues', 'list');
    expect(
      issues.safeParse({ organization_slug: 'acme', project_slug: 'web', query: '', statsPeriod: '' }).success,
    ).toBe(true);
    expect(issues.safeParse({ organization_slug: 'acme', project_slug: 'web', statsPeriod: '24h' }).success).toBe(true);
    expect(issues.safeParse({ organization_slug: 'acme', project_slug: 'web', statsPeriod: '7d' }).success).toBe(false);
    expect(issues.safeParse({ organization_slug: 'acme' }).success).toBe(false);
    const event = params('events', 'get');
    expect(event.safeParse({ organization_slug: 'a', project_slug: 'b', event_id: 'a'.repeat(32) }).success).toBe(true);
    expect(event.safeParse({ organization_slug: 'a', project_slug: 'b', event_id: 'xyz' }).success).toBe(false);
    expect(
      params('events', 'list').safeParse({ organization_slug: 'a', project_slug: 'b', full: 'true' }).success,
    ).toBe(true);
    expect(params('events', 'list').safeParse({ organization_slug: 'a', project_slug: 'b', full: 'yes' }).success).toBe(
      false,
    );
    expect(params('releases', 'get').safeParse({ organization_slug: 'a', version: 'web@1.2.3' }).success).toBe(true);
    expect(params('releases', 'get').safeParse({ organization_slug: 'a' }).success).toBe(false);
  });

  it('takes an auth token and an optional organization in config', () => {
    expect(sentryCatalog.credentials.safeParse({ auth_token: 't' }).success).toBe(true);
    expect(sentryCatalog.credentials.safeParse({ token: 't' }).success).toBe(false);
    expect(sentryCatalog.config.safeParse({}).success).toBe(true);
    expect(sentryCatalog.config.safeParse({ organization_slug: 'acme' }).success).toBe(true);
    expect(sentryCatalog.config.safeParse({ organization_slug: 'Acme Corp' }).success).toBe(false);
  });
});
