import { describe, expect, it } from 'vitest';
import { googleAdsCatalog } from './catalog.ts';
import { ENTITY_QUERIES, windowQuery } from './queries.ts';

/** The catalog's neutral names of two vendor fields (see catalog.ts). */
const VENDOR_NAME: Readonly<Record<string, string>> = {
  'customer.remarketing_setting.provider_global_site_tag': 'customer.remarketing_setting.google_global_site_tag',
  'campaign.network_settings.target_provider_search': 'campaign.network_settings.target_google_search',
};

/** The fields a replication query selects (the day-window query for date-segmented entities). */
function selected(entity: string): Set<string> {
  const spec = ENTITY_QUERIES[entity]!;
  const query = spec.byDate ? windowQuery(spec, '2024-01-01', '2024-01-02') : `SELECT ${spec.fields.join(', ')}`;
  const list = /^SELECT (.+?)(?: FROM |$)/.exec(query)?.[1] ?? '';
  return new Set(list.split(',').map((f) => f.trim()));
}

describe('Google Ads replication queries', () => {
  it('select every searchable field, so no filter silently matches nothing', () => {
    for (const entity of Object.values(googleAdsCatalog.entities)) {
      if (!entity.searchable) continue;
      const fields = selected(entity.name);
      const missing = Object.keys(entity.searchable).filter((name) => !fields.has(VENDOR_NAME[name] ?? name));
      expect(missing, entity.name).toEqual([]);
    }
  });
});
