import type { Paging } from '../core/catalog.ts';
import type { DefinedPaging } from './definition-format.ts';

/**
 * The definition format names paging fields in snake_case, as the rest of the JSON API does; the core's catalogs in
 * camelCase, as the rest of the TypeScript does. The values and their meaning are the same (docs/definitions.md,
 * "Paging"), so a paging object crosses by renaming its keys, one table for both directions.
 */
const CORE_NAMES = {
  next_at: 'nextAt',
  has_more_at: 'hasMoreAt',
  stop_on_empty: 'stopOnEmpty',
  total_pages_at: 'totalPagesAt',
  limit_param: 'limitParam',
  full_page: 'fullPage',
  count_at: 'countAt',
  pages_at: 'pagesAt',
  links_at: 'linksAt',
} as const;
const FORMAT_NAMES = Object.fromEntries(Object.entries(CORE_NAMES).map(([format, core]) => [core, format]));

function renamed(value: object, names: Readonly<Record<string, string>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      names[key] ?? key,
      typeof inner === 'object' && inner !== null ? renamed(inner, names) : inner,
    ]),
  );
}

/** A definition's paging as the core's. */
export function corePaging(paging: DefinedPaging): Paging {
  return renamed(paging, CORE_NAMES) as unknown as Paging;
}

/** A catalog's paging as the definition format says it. */
export function formatPaging(paging: Paging): DefinedPaging {
  return renamed(paging, FORMAT_NAMES) as DefinedPaging;
}
