import { describe, expect, it } from 'vitest';
import { actionParams } from '../../core/catalog.ts';
import { snapchatMarketingCatalog } from './catalog.ts';

const { entities } = snapchatMarketingCatalog;

const params = (entity: string, action: 'list' | 'get') => actionParams(entities, entity, action);

describe('Snapchat Marketing catalog', () => {
  it('makes all but segments searchable, each searchable entity with a sync spec', () => {
    for (const entity of Object.values(entities))
      expect(Boolean(entity.sync), entity.name).toBe(Boolean(entity.searchable));
    const searchable = Object.values(entities)
      .filter((e) => e.searchable)
      .map((e) => e.name);
    expect(searchable).toEqual(['organizations', 'adaccounts', 'campaigns', 'adsquads', 'ads', 'creatives', 'media']);
    // list (the catalog) and get (the seed system's action beyond it, GET /segments/{id}).
    expect(Object.keys(entities.segments?.actions ?? {})).toEqual(['list', 'get']);
  });

  it('reads adaccounts per organization and the rest per ad account', () => {
    expect(entities.organizations?.sync?.parent).toBeUndefined();
    expect(entities.adaccounts?.sync?.parent).toEqual({
      entity: 'organizations',
      param: 'organization_id',
      from: 'id',
    });
    for (const name of ['campaigns', 'adsquads', 'ads', 'creatives', 'media']) {
      expect(entities[name]?.sync?.parent, name).toEqual({ entity: 'adaccounts', param: 'ad_account_id', from: 'id' });
    }
  });

  it("follows the catalog's searchable lists", () => {
    const orgs = Object.keys(entities.organizations?.searchable ?? {});
    expect(orgs).not.toContain('verification_request_id');
    expect(orgs).not.toContain('demand_source');
    expect(orgs).not.toContain('is_agency');
    expect(orgs).toHaveLength(Object.keys(entities.organizations?.record ?? {}).length - 3);
    expect(Object.keys(entities.campaigns?.searchable ?? {})).not.toContain('objective_v2_properties');
    expect(entities.media?.searchable).toEqual(entities.media?.record);
    expect(entities.campaigns?.record.updated_at).toEqual({ type: 'datetime', nullable: false });
  });

  it('requires the parent ids and the id', () => {
    expect(params('organizations', 'list').safeParse({}).success).toBe(true);
    expect(params('adaccounts', 'list').safeParse({}).success).toBe(false);
    expect(params('adaccounts', 'list').safeParse({ organization_id: 'o1' }).success).toBe(true);
    expect(params('campaigns', 'list').safeParse({ ad_account_id: 'a1' }).success).toBe(true);
    expect(params('campaigns', 'list').safeParse({ organization_id: 'o1' }).success).toBe(false);
    expect(params('segments', 'list').safeParse({}).success).toBe(false);
    expect(params('media', 'get').safeParse({ id: 'm1' }).success).toBe(true);
    expect(params('media', 'get').safeParse({ id: '' }).success).toBe(false);
  });

  it('requires an OAuth refresh setup', () => {
    const base = { refresh_token: 'r', client_id: 'c', client_secret: 's' };
    expect(snapchatMarketingCatalog.credentials.safeParse(base).success).toBe(true);
    expect(snapchatMarketingCatalog.credentials.safeParse({ ...base, access_token: 'a' }).success).toBe(true);
    expect(snapchatMarketingCatalog.credentials.safeParse({ access_token: 'a' }).success).toBe(false);
  });
});
