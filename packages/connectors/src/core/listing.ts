import type { EntityCatalog, Paging, SinceParam, UpstreamSpec } from './catalog.ts';
import type {
  ConnectorContext,
  EntityOperations,
  ListPage,
  Params,
  ReadPage,
  ReadRequest,
  UpstreamRecord,
} from './define-connector.ts';
import { ConnectorError, UpstreamError } from './errors.ts';
import type { QueryValue } from './http-client.ts';
import { parseLinkHeader } from './link-header.ts';
import { at, readByListing, recordsAt } from './paging.ts';

/** What a kind adds to its declared entity: how a record reads, and query values the declaration cannot say. */
export interface ListHooks {
  /** Maps each upstream record (incident.io's neutral shape, PayPal disputes...). */
  readonly record?: (record: UpstreamRecord, params: Params) => UpstreamRecord;
  /** Replaces how records (and extra Meta) are taken from the answer (Snap's wrapped objects). */
  readonly answer?: (body: unknown, params: Params) => { records: UpstreamRecord[]; meta?: Record<string, unknown> };
  /** A list that is a search: sent as a POST with this JSON body (PayPal's invoice search). */
  readonly body?: (params: Params) => unknown;
  /** Rewrites the query the declaration built from the params. */
  readonly query?: (query: Record<string, QueryValue>, params: Params) => Record<string, QueryValue>;
  /** Rewrites the next page's params the paging built (Typeform: the keyset param follows the read's direction). */
  readonly next?: (next: Params, params: Params) => Params;
}

/** `{name}` placeholders of a path template filled from params (escaped); the names used are returned too. */
export function fillPath(template: string, params: Params): { path: string; used: string[] } {
  const used: string[] = [];
  const path = template.replaceAll(/\{(\w+)\}/g, (_, name: string) => {
    used.push(name);
    const raw = params[name];
    const value = raw === undefined || raw === null ? '' : String(raw);
    if (value === '') {
      throw new ConnectorError('invalid_params', 'invalid params', [
        { path: `/params/${name}`, message: 'is required' },
      ]);
    }
    // URL resolution applies dot segments even when escaped (%2E%2E): an id must never climb the path.
    if (/^(\.|%2e){1,2}$/i.test(value)) {
      throw new ConnectorError('invalid_params', 'invalid params', [
        { path: `/params/${name}`, message: 'must not be . or ..' },
      ]);
    }
    return encodeURIComponent(value);
  });
  return { path, used };
}

/** Params as a query string: undefined/null and `skip` left out, booleans as text, names renamed by `rename`. */
export function queryParams(
  params: Params,
  skip: readonly string[],
  rename: Readonly<Record<string, string>> = {},
): Record<string, QueryValue> {
  const query: Record<string, QueryValue> = {};
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null || skip.includes(key)) continue;
    query[rename[key] ?? key] = typeof value === 'boolean' ? String(value) : (value as QueryValue);
  }
  return query;
}

/**
 * A next-page URL given back by a caller (or a checkpoint): it must stay on the upstream's origin (the HTTP client
 * refuses any other) and point at this very list, so a caller cannot aim the connector's credentials elsewhere.
 */
export function checkedNextUrl(ctx: ConnectorContext, listPath: string, param: string, value: string): string {
  let url: URL;
  let own: URL;
  try {
    url = new URL(value);
    own = ctx.http.url(listPath);
  } catch {
    throw new ConnectorError('invalid_params', 'invalid params', [
      { path: `/params/${param}`, message: 'must be the next-page URL a previous page returned' },
    ]);
  }
  const samePath = (a: string, b: string) => a.replace(/\.json$/, '') === b.replace(/\.json$/, '');
  if (url.origin !== own.origin || !samePath(url.pathname, own.pathname) || url.username || url.password) {
    throw new ConnectorError('invalid_params', 'invalid params', [
      { path: `/params/${param}`, message: 'must be the next-page URL a previous page of this list returned' },
    ]);
  }
  return url.toString();
}

function nonEmpty(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** The next-page value an answer carries, by paging style; null at the end. */
function nextValue(paging: Paging, body: unknown, response: Response, records: readonly unknown[]): unknown {
  switch (paging.type) {
    case 'none':
      return null;
    case 'cursor': {
      if (paging.hasMoreAt !== undefined && at(body, paging.hasMoreAt) !== true) return null;
      if (paging.stopOnEmpty && records.length === 0) return null;
      return nonEmpty(at(body, paging.nextAt));
    }
    case 'page_token':
      return nonEmpty(at(body, paging.nextAt));
    case 'next_url': {
      if (paging.fullPage) {
        const count = at(body, paging.fullPage.countAt);
        if ((typeof count === 'number' ? count : records.length) < paging.fullPage.size) return null;
      }
      return nonEmpty(at(body, paging.nextAt));
    }
    case 'last_record': {
      const pages = paging.pagesAt === undefined ? undefined : at(body, paging.pagesAt);
      if (typeof pages === 'number' && pages <= 1) return null;
      return nonEmpty(at(records.at(-1), paging.field));
    }
    case 'body_link': {
      const links = at(body, paging.linksAt);
      const next = Array.isArray(links)
        ? (links.find((l) => (l as { rel?: unknown } | null)?.rel === 'next') as { href?: unknown } | undefined)
        : undefined;
      if (typeof next?.href !== 'string') return null;
      // The href may be relative: only its query matters, so any base will do.
      return nonEmpty(new URL(next.href, 'https://relative.invalid').searchParams.get(paging.param));
    }
    case 'link_header': {
      const next = parseLinkHeader(response.headers.get('link')).next;
      if (!next?.results) return null;
      return next.cursor || nonEmpty(new URL(next.url, 'https://relative.invalid').searchParams.get(paging.param));
    }
    case 'page_number':
    case 'offset':
      return null;
  }
}

/** One page of a declared list: the records, the declared Meta and the next-page value, and the next params. */
export async function listDeclared(
  ctx: ConnectorContext,
  spec: UpstreamSpec,
  given: Params,
  hooks: ListHooks = {},
): Promise<ListPage> {
  const { paging } = spec;
  // Offset paging knows a page is the last by its size: ask for the size it compares with.
  const params =
    paging.type === 'offset' && given[paging.limitParam] === undefined
      ? { ...given, [paging.limitParam]: paging.limit }
      : given;
  const { path, used } = fillPath(spec.path, params);
  const followed =
    paging.type === 'next_url' && typeof params[paging.param] === 'string'
      ? checkedNextUrl(ctx, path, paging.param, params[paging.param] as string)
      : null;
  const skip = paging.type === 'next_url' ? [...used, paging.param] : used;
  const built = { ...queryParams(params, skip, spec.query), ...spec.constantQuery };
  const query = hooks.query ? hooks.query(built, params) : built;
  const response = await ctx.http.send(
    followed
      ? { path: followed, signal: ctx.signal }
      : {
          path,
          query,
          signal: ctx.signal,
          // A query sent as a POST body is still a read: safe to send again.
          ...(hooks.body ? { method: 'POST' as const, json: hooks.body(params), idempotent: true } : {}),
        },
  );
  const body = await ctx.http.readJson(response);
  const answer = hooks.answer?.(body, params) ?? { records: recordsOf(spec, body) };
  const named = spec.aliases ? answer.records.map((r) => withAliases(r, spec.aliases!)) : answer.records;
  const records = hooks.record ? named.map((r) => hooks.record!(r, params)) : named;

  const meta: Record<string, unknown> = {};
  let next: Params | null = null;
  if (paging.type === 'page_number') {
    const page = typeof params[paging.param] === 'number' ? (params[paging.param] as number) : 1;
    const total = at(body, paging.totalPagesAt);
    const more = typeof total === 'number' && page < total && !(paging.stopOnEmpty && records.length === 0);
    next = more ? { ...params, [paging.param]: page + 1 } : null;
  } else if (paging.type === 'offset') {
    const offset = typeof params[paging.param] === 'number' ? (params[paging.param] as number) : 0;
    const limit = typeof params[paging.limitParam] === 'number' ? (params[paging.limitParam] as number) : paging.limit;
    next =
      records.length >= limit
        ? { ...params, [paging.param]: offset + records.length, [paging.limitParam]: limit }
        : null;
    meta[paging.param] = next ? offset + records.length : null;
  } else if (paging.type !== 'none') {
    const value = nextValue(paging, body, response, records);
    if (paging.type !== 'last_record') meta[paging.meta ?? paging.param] = value;
    next = value === null ? null : { ...params, [paging.param]: value };
  }
  if (next && hooks.next) next = hooks.next(next, params);
  for (const [name, where] of Object.entries(spec.meta ?? {})) meta[name] = at(body, where) ?? null;
  return { records, meta: { ...meta, ...answer.meta }, next };
}

function recordsOf(spec: UpstreamSpec, body: unknown): UpstreamRecord[] {
  if (typeof spec.records === 'object' && spec.records !== null) return [recordAt(body, spec.records.object)];
  // An empty page of some upstreams (PayPal, Drive) leaves the list key out.
  if (spec.records !== null && at(body, spec.records) === undefined && typeof body === 'object' && body !== null) {
    return [];
  }
  return recordsAt(body, spec.records);
}

/** The object at `path` in an answer (the answer itself for undefined or null); an upstream error otherwise. */
function recordAt(body: unknown, path: string | null | undefined): UpstreamRecord {
  const record = path === undefined || path === null ? body : at(body, path);
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    throw new UpstreamError('upstream_error', `the upstream answer has no object at '${path ?? '(root)'}'`, 200, null);
  }
  return record as UpstreamRecord;
}

/** Get by id from the declaration; the record is the answer, or the object at `get.record`. */
export async function getDeclared(
  ctx: ConnectorContext,
  spec: UpstreamSpec,
  params: Params,
  hooks: ListHooks = {},
): Promise<UpstreamRecord> {
  if (!spec.get) throw new Error(`${spec.path} declares no get`);
  const { path, used } = fillPath(spec.get.path, params);
  const body = await ctx.http.json<unknown>({
    path,
    query: { ...spec.get.defaults, ...queryParams(params, used, spec.query) },
    signal: ctx.signal,
  });
  const found = recordAt(body, spec.get.record);
  const record = spec.aliases ? withAliases(found, spec.aliases) : found;
  return hooks.record ? hooks.record(record, params) : record;
}

/** The record with each alias filled from the vendor's field where the record does not have it already. */
function withAliases(record: UpstreamRecord, aliases: Readonly<Record<string, string>>): UpstreamRecord {
  let out: UpstreamRecord | null = null;
  for (const [name, vendor] of Object.entries(aliases)) {
    if (Object.hasOwn(record, vendor) && !Object.hasOwn(record, name)) {
      out ??= { ...record };
      out[name] = record[vendor];
    }
  }
  return out ?? record;
}

/** `since` in the form an upstream filter wants. */
export function sinceValue(since: string, format: SinceParam['format']): string {
  if (format === 'as_is') return since;
  if (format === 'day') return /^\d{4}-\d{2}-\d{2}/.exec(since)?.[0] ?? new Date(since).toISOString().slice(0, 10);
  const ms = Date.parse(since);
  if (Number.isNaN(ms))
    throw new UpstreamError('upstream_error', `not an ISO 8601 instant: ${since.slice(0, 40)}`, null, null);
  if (format === 'seconds') return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  return new Date(ms).toISOString();
}

/** Replication over a declared list: the declared first params, the parent's params and the since filter. */
export function readDeclared(
  ctx: ConnectorContext,
  spec: UpstreamSpec,
  request: ReadRequest,
  hooks: ListHooks = {},
): AsyncIterable<ReadPage> {
  const since = spec.read?.since;
  const first: Params = {
    ...spec.read?.params,
    ...request.parentParams,
    ...(since ? { [since.param]: sinceValue(request.since, since.format) } : {}),
  };
  return readListing(ctx, spec, first, request.resume, hooks);
}

/**
 * Replication over a declared list from first params the kind computes (a parent walk, a filter built from
 * `since`...): page by page, each checkpoint the next page's params.
 */
export function readListing(
  ctx: ConnectorContext,
  spec: UpstreamSpec,
  first: Params,
  resume: unknown,
  hooks: ListHooks = {},
): AsyncGenerator<ReadPage> {
  return readByListing((p) => listDeclared(ctx, spec, p, hooks), first, resume);
}

/** The operations a declared entity gets from the core: list, get (when declared) and replication read. */
export function declaredOperations(entity: EntityCatalog, hooks: ListHooks = {}): EntityOperations {
  const spec = entity.upstream;
  if (!spec) return {};
  return {
    list: (ctx, params) => listDeclared(ctx, spec, params, hooks),
    ...(spec.get ? { get: (ctx: ConnectorContext, params: Params) => getDeclared(ctx, spec, params, hooks) } : {}),
    read: (ctx, request) => readDeclared(ctx, spec, request, hooks),
  };
}
