import { type EntityCatalog, t } from '@conduit/connectors';

/** A small full-refresh entity the index store's tests write: three string fields, all searchable. */
export const things: EntityCatalog = {
  name: 'things',
  recordKey: 'id',
  record: { id: t.string(), name: t.string(), size: t.string() },
  searchable: { id: t.string(), name: t.string(), size: t.string() },
  actions: {},
  sync: { mode: 'full_refresh' },
};
