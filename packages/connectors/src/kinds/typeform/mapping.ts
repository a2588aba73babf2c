import type { Params, UpstreamRecord } from '../../core/define-connector.ts';
import { UpstreamError } from '../../core/errors.ts';
import { recordsAt } from '../../core/paging.ts';

/** `{total_items, page_count, items}`: the envelope of every paged Typeform list. */
export interface TypeformList {
  readonly total_items?: number;
  readonly page_count?: number;
  readonly items?: unknown;
}

export function pageMeta(body: TypeformList): { total_items: number | null; page_count: number | null } {
  return {
    total_items: typeof body.total_items === 'number' ? body.total_items : null,
    page_count: typeof body.page_count === 'number' ? body.page_count : null,
  };
}

/**
 * Typeform responses carry no form_id; document 2 lists it, so it is added from the request
 * (https://www.typeform.com/developers/responses/reference/retrieve-responses/).
 */
export function responseRecords(body: TypeformList, formId: string): UpstreamRecord[] {
  return recordsAt(body, 'items').map((item) => ({ ...item, form_id: formId }));
}

/**
 * Token paging of responses: `after={last token}` continues an ascending read, `before={last token}` a
 * descending one (the default order is newest first). Typeform refuses `sort` together with after/before,
 * so the follow-up drops it. The end is an empty page or `page_count` ≤ 1 (this page held the rest).
 */
export function nextResponsesParams(
  params: Params,
  body: TypeformList,
  records: readonly UpstreamRecord[],
): Params | null {
  const last = records.at(-1);
  const token = typeof last?.token === 'string' ? last.token : null;
  if (!token || (typeof body.page_count === 'number' && body.page_count <= 1)) return null;
  const { sort, after: _after, before: _before, ...rest } = params;
  const ascending = typeof sort === 'string' ? /,\s*asc$/i.test(sort) : typeof params.after === 'string';
  return ascending ? { ...rest, after: token } : { ...rest, before: token };
}

/**
 * Typeform takes `since`/`until` as ISO 8601 UTC "to the second"; replication cursors may carry milliseconds
 * or an offset, so they are normalized to `YYYY-MM-DDTHH:MM:SSZ`.
 */
export function typeformInstant(value: string): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms))
    throw new UpstreamError('upstream_error', `not an ISO 8601 instant: ${value.slice(0, 40)}`, null, null);
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
