import type { TypeformResponse } from './data.ts';

/** A Typeform-shaped validation failure: the route answers 400 with it. */
export interface TypeformQueryError {
  readonly description: string;
}

export interface ResponsesPage {
  readonly total_items: number;
  readonly page_count: number;
  readonly items: TypeformResponse[];
}

const MAX_PAGE_SIZE = 1000;

/** `since`/`until` accept ISO 8601 (to the second) or a Unix timestamp in seconds, as Typeform documents. */
function instant(raw: string | null): number | null | 'invalid' {
  if (raw === null || raw === '') return null;
  if (/^\d+$/.test(raw)) return Number(raw) * 1000;
  const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(raw) ? raw : `${raw}Z`);
  return Number.isNaN(ms) ? 'invalid' : ms;
}

function order(a: TypeformResponse, b: TypeformResponse): number {
  return a.submitted_at.localeCompare(b.submitted_at) || a.token.localeCompare(b.token);
}

function matchesQuery(response: TypeformResponse, query: string): boolean {
  const haystack = JSON.stringify([response.answers, response.hidden, response.variables]).toLowerCase();
  return haystack.includes(query.toLowerCase());
}

/**
 * GET /forms/{form_id}/responses (https://www.typeform.com/developers/responses/reference/retrieve-responses/):
 * page_size ≤ 1000 (default 25), since/until inclusive, after/before tokens (not combinable with sort: `after`
 * pages oldest first, `before` newest first), sort `submitted_at,asc|desc` (default newest first), completed, query.
 */
export function queryResponses(
  all: readonly TypeformResponse[],
  query: URLSearchParams,
): ResponsesPage | TypeformQueryError {
  const pageSize = Number(query.get('page_size') ?? 25);
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    return { description: `page_size must be between 1 and ${MAX_PAGE_SIZE}` };
  }
  const since = instant(query.get('since'));
  const until = instant(query.get('until'));
  if (since === 'invalid' || until === 'invalid')
    return { description: 'since/until must be ISO 8601 or a Unix timestamp' };
  const after = query.get('after');
  const before = query.get('before');
  const sort = query.get('sort');
  if (sort && (after || before))
    return { description: 'the sort parameter cannot be used together with after or before' };
  let direction: 'asc' | 'desc' = before ? 'desc' : after ? 'asc' : 'desc';
  if (sort) {
    const [field, dir] = sort.split(',');
    if (!['submitted_at', 'landed_at'].includes(field ?? '') || !['asc', 'desc'].includes(dir ?? 'desc')) {
      return { description: `invalid sort '${sort}'` };
    }
    direction = (dir ?? 'desc') as 'asc' | 'desc';
  }
  const completed = query.get('completed');
  const text = query.get('query');
  // https://www.typeform.com/developers/responses/reference/retrieve-responses/: comma-separated response ids.
  const included = query.get('included_response_ids')?.split(',').filter(Boolean) ?? null;

  let rows = all.filter((r) => {
    const at = Date.parse(r.submitted_at);
    return (
      (since === null || at >= since) &&
      (until === null || at <= until) &&
      (completed === null || (completed === 'true') === (r.response_type === 'completed')) &&
      (!text || matchesQuery(r, text)) &&
      (included === null || included.includes(r.response_id))
    );
  });
  rows.sort(order);
  for (const [token, keep] of [
    [after, (r: TypeformResponse, pivot: TypeformResponse) => order(r, pivot) > 0],
    [before, (r: TypeformResponse, pivot: TypeformResponse) => order(r, pivot) < 0],
  ] as const) {
    if (!token) continue;
    const pivot = all.find((r) => r.token === token);
    if (!pivot) return { description: `unknown response token '${token}'` };
    rows = rows.filter((r) => keep(r, pivot));
  }
  if (direction === 'desc') rows.reverse();
  return {
    total_items: rows.length,
    page_count: Math.ceil(rows.length / pageSize),
    items: rows.slice(0, pageSize),
  };
}
