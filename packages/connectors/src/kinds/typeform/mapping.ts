import type { Params } from '../../core/define-connector.ts';
import { UpstreamError } from '../../core/errors.ts';

/**
 * Token paging of responses: `after={last token}` continues an ascending read, `before={last token}` a
 * descending one (the default order is newest first). Typeform refuses `sort` together with after/before,
 * so the follow-up drops it. `next` is the declared follow-up (`after`), `params` the page just read.
 */
export function responsesDirection(next: Params, params: Params): Params {
  const { sort, after: token, before: _before, ...rest } = next;
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
