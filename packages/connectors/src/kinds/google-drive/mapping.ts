import type { Params } from '../../core/define-connector.ts';
import type { QueryValue } from '../../core/http-client.ts';
import type { ListHooks } from '../../core/listing.ts';

/** Params that are sent as the query string under their own names (the catalog uses Drive's names). */
export function queryOf(params: Params, exclude: readonly string[]): Record<string, QueryValue> {
  const query: Record<string, QueryValue> = {};
  for (const [key, value] of Object.entries(params)) {
    if (exclude.includes(key) || value === undefined || value === null) continue;
    query[key] = Array.isArray(value) ? value.join(',') : (value as QueryValue);
  }
  return query;
}

/**
 * The `fields` of a list call. Drive returns only `kind,id,name,mimeType` per file unless asked, and comments,
 * replies and about refuse to answer without `fields` (https://developers.google.com/workspace/drive/api/guides/fields-parameter),
 * so the default is `*` (the catalog's full records). A caller's own selection is kept, with the paging fields added
 * when it leaves them out — otherwise `nextPageToken` would silently vanish and paging would stop after one page.
 */
export function listFields(fields: unknown, paging: readonly string[]): string {
  if (typeof fields !== 'string' || fields.trim() === '') return '*';
  const topLevel = fields.replace(/\([^()]*\)/g, '');
  if (topLevel.split(',').some((f) => f.trim() === '*')) return fields;
  const missing = paging.filter((name) => !new RegExp(`(^|,)\\s*${name}\\s*(,|$)`).test(topLevel));
  return [...missing, fields].join(',');
}

/**
 * What Drive adds to its declared lists: lists go as comma-separated values, and `fields` keeps the `paging` fields
 * (listFields).
 */
export function driveListHooks(paging: readonly string[]): ListHooks {
  return { query: (query, params) => ({ ...queryOf(query, []), fields: listFields(params.fields, paging) }) };
}
