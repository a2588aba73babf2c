import { describe, expect, it } from 'vitest';
import { noAuth } from './auth.ts';
import type { UpstreamSpec } from './catalog.ts';
import type { ConnectorContext } from './define-connector.ts';
import { ConnectorError } from './errors.ts';
import { UpstreamHttpClient } from './http-client.ts';
import {
  checkedNextUrl,
  fillPath,
  getDeclared,
  listDeclared,
  queryParams,
  readDeclared,
  readListing,
  sinceValue,
} from './listing.ts';

const BASE = 'https://api.example.test/v1';

/** A context whose upstream answers from `answer` and records every URL asked for. */
function contextWith(answer: (url: URL, init: RequestInit) => Response) {
  const urls: URL[] = [];
  const http = new UpstreamHttpClient({
    baseUrl: BASE,
    auth: noAuth(),
    fetch: async (input, init) => {
      const url = new URL(String(input));
      urls.push(url);
      return answer(url, init ?? {});
    },
  });
  const ctx: ConnectorContext = { http, credentials: {}, config: {} };
  return { ctx, urls };
}

const json = (body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json', ...headers } });

describe('fillPath', () => {
  it('fills and escapes placeholders and names the params it used', () => {
    expect(fillPath('a/{x}/b/{y}/', { x: 'p q', y: 'r/s', z: 1 })).toEqual({
      path: 'a/p%20q/b/r%2Fs/',
      used: ['x', 'y'],
    });
  });

  it('refuses dot segments and missing values, naming the param', () => {
    for (const [value, message] of [
      ['..', 'must not be . or ..'],
      ['%2E', 'must not be . or ..'],
      ['', 'is required'],
    ] as const) {
      const error = (() => {
        try {
          fillPath('items/{id}', { id: value });
        } catch (e) {
          return e as ConnectorError;
        }
      })();
      expect(error).toBeInstanceOf(ConnectorError);
      expect(error?.errors).toEqual([{ path: '/params/id', message }]);
    }
  });
});

describe('queryParams', () => {
  it('leaves out undefined, null and skipped params, renames, and sends booleans as text', () => {
    expect(queryParams({ a: 1, b: undefined, c: null, d: true, e: 'x', skip: 's' }, ['skip'], { e: 'e[gte]' })).toEqual(
      {
        a: 1,
        d: 'true',
        'e[gte]': 'x',
      },
    );
  });
});

describe('sinceValue', () => {
  it('formats since for each declared form', () => {
    const since = '2024-03-04T05:06:07.891Z';
    expect(sinceValue(since, 'as_is')).toBe(since);
    expect(sinceValue(since, 'day')).toBe('2024-03-04');
    expect(sinceValue(since, 'seconds')).toBe('2024-03-04T05:06:07Z');
    expect(sinceValue('2024-03-04T05:06:07+01:00', 'iso')).toBe('2024-03-04T04:06:07.000Z');
  });
});

describe('listDeclared', () => {
  it('cursor paging: next value only while has_more, renamed query, declared meta', async () => {
    const spec: UpstreamSpec = {
      path: 'things',
      records: 'data',
      paging: { type: 'cursor', param: 'cursor', meta: 'next_cursor', nextAt: 'page.next', hasMoreAt: 'page.more' },
      query: { since: 'created[gte]' },
      meta: { total: 'page.total' },
    };
    const { ctx, urls } = contextWith((url) =>
      json({
        data: [{ id: 1 }],
        page: { next: url.searchParams.get('cursor') ? 'c3' : 'c2', more: !url.searchParams.get('cursor'), total: 9 },
      }),
    );
    const first = await listDeclared(ctx, spec, { since: '2024' });
    expect(urls[0]?.searchParams.get('created[gte]')).toBe('2024');
    expect(first).toEqual({
      records: [{ id: 1 }],
      meta: { next_cursor: 'c2', total: 9 },
      next: { since: '2024', cursor: 'c2' },
    });
    const last = await listDeclared(ctx, spec, first.next!);
    expect(last.next).toBeNull();
    expect(last.meta.next_cursor).toBeNull();
  });

  it('page_number paging: the next page while page < total pages, not after an empty page when so declared', async () => {
    const spec: UpstreamSpec = {
      path: 'pages',
      records: 'items',
      paging: { type: 'page_number', param: 'page', totalPagesAt: 'page_count', stopOnEmpty: true },
    };
    const { ctx } = contextWith((url) =>
      json({ items: url.searchParams.get('page') === '3' ? [] : [{ id: 1 }], page_count: 5 }),
    );
    expect((await listDeclared(ctx, spec, {})).next).toEqual({ page: 2 });
    expect((await listDeclared(ctx, spec, { page: 3 })).next).toBeNull();
  });

  it('link_header paging: the cursor of rel="next" only when it has results', async () => {
    const spec: UpstreamSpec = { path: 'list/', records: null, paging: { type: 'link_header', param: 'cursor' } };
    const link = (results: boolean) =>
      `<${BASE}/list/?cursor=0:0:1>; rel="previous"; results="false"; cursor="0:0:1", <${BASE}/list/?cursor=0:100:0>; rel="next"; results="${results}"; cursor="0:100:0"`;
    let more = true;
    const { ctx } = contextWith(() => json([{ id: 'a' }], { link: link(more) }));
    expect(await listDeclared(ctx, spec, {})).toMatchObject({ records: [{ id: 'a' }], next: { cursor: '0:100:0' } });
    more = false;
    expect((await listDeclared(ctx, spec, {})).next).toBeNull();
  });

  it('next_url paging: follows a returned URL as-is, and an empty page with the list key left out has no records', async () => {
    const spec: UpstreamSpec = {
      path: 'calls',
      records: 'calls',
      paging: { type: 'next_url', param: 'next_page', nextAt: 'next_page' },
    };
    const { ctx, urls } = contextWith((url) =>
      url.searchParams.get('page')
        ? json({ next_page: null })
        : json({ calls: [{ id: 1 }], next_page: `${BASE}/calls?page=2` }),
    );
    const first = await listDeclared(ctx, spec, { per_page: 10 });
    expect(first.meta).toEqual({ next_page: `${BASE}/calls?page=2` });
    const second = await listDeclared(ctx, spec, first.next!);
    expect(urls[1]?.toString()).toBe(`${BASE}/calls?page=2`);
    expect(second).toEqual({ records: [], meta: { next_page: null }, next: null });
  });

  it('next_url paging with fullPage: the URL counts only after a full page (by the declared count, else the records)', async () => {
    const spec: UpstreamSpec = {
      path: 'exports',
      records: 'rows',
      paging: { type: 'next_url', param: 'next_page', nextAt: 'next_page', fullPage: { countAt: 'count', size: 2 } },
    };
    let body: unknown = {};
    const { ctx } = contextWith(() => json(body));
    const next = `${BASE}/exports?start_time=9`;
    body = { rows: [{ id: 1 }, { id: 2 }], count: 2, next_page: next };
    expect(await listDeclared(ctx, spec, { start_time: 0 })).toMatchObject({
      meta: { next_page: next },
      next: { start_time: 0, next_page: next },
    });
    body = { rows: [{ id: 1 }], count: 1, next_page: next };
    expect(await listDeclared(ctx, spec, {})).toMatchObject({ meta: { next_page: null }, next: null });
    body = { rows: [{ id: 1 }, { id: 2 }], next_page: next };
    expect((await listDeclared(ctx, spec, {})).next).toEqual({ next_page: next });
  });

  it('body_link paging: the param of the rel="next" link in the answer, relative or absolute', async () => {
    const spec: UpstreamSpec = {
      path: 'disputes',
      records: 'items',
      paging: { type: 'body_link', param: 'next_page_token', linksAt: 'links' },
    };
    let links: unknown = [
      { rel: 'self', href: '/disputes?next_page_token=self' },
      { rel: 'next', href: '/disputes?page_size=5&next_page_token=t2' },
    ];
    const { ctx } = contextWith(() => json({ items: [{ id: 1 }], links }));
    expect(await listDeclared(ctx, spec, { page_size: 5 })).toEqual({
      records: [{ id: 1 }],
      meta: { next_page_token: 't2' },
      next: { page_size: 5, next_page_token: 't2' },
    });
    links = [{ rel: 'next', href: `${BASE}/disputes?next_page_token=t3` }];
    expect((await listDeclared(ctx, spec, {})).next).toEqual({ next_page_token: 't3' });
    for (const none of [[{ rel: 'self', href: '/disputes' }], [{ rel: 'next', href: '/disputes' }], undefined]) {
      links = none;
      expect(await listDeclared(ctx, spec, {})).toMatchObject({ meta: { next_page_token: null }, next: null });
    }
  });

  it("last_record paging: the last record's field continues the list, until an empty page or a last page count", async () => {
    const spec: UpstreamSpec = {
      path: 'forms/{form}/responses',
      records: 'items',
      paging: { type: 'last_record', param: 'after', field: 'token', pagesAt: 'page_count' },
      meta: { page_count: 'page_count' },
    };
    let body: unknown = { items: [{ token: 'a' }, { token: 'b' }], page_count: 3 };
    const { ctx, urls } = contextWith(() => json(body));
    expect(await listDeclared(ctx, spec, { form: 'f', size: 2 })).toEqual({
      records: [{ token: 'a' }, { token: 'b' }],
      meta: { page_count: 3 },
      next: { form: 'f', size: 2, after: 'b' },
    });
    expect(urls[0]?.search).toBe('?size=2');
    for (const last of [{ items: [{ token: 'c' }], page_count: 1 }, { items: [], page_count: 2 }, { items: [{}] }]) {
      body = last;
      expect((await listDeclared(ctx, spec, { form: 'f' })).next).toBeNull();
    }
    // The kind may rewrite the next params (Typeform: `before` for a descending read).
    body = { items: [{ token: 'd' }], page_count: 2 };
    const page = await listDeclared(
      ctx,
      spec,
      { form: 'f', sort: 'x' },
      { next: ({ after, sort: _sort, ...rest }) => ({ ...rest, before: after }) },
    );
    expect(page.next).toEqual({ form: 'f', before: 'd' });
  });

  it('an answer that is one record: the whole answer, or the object at the declared path', async () => {
    let body: unknown = { account_id: 'A', balances: [] };
    const { ctx } = contextWith(() => json(body));
    const whole: UpstreamSpec = { path: 'balances', records: { object: null }, paging: { type: 'none' } };
    expect(await listDeclared(ctx, whole, {})).toEqual({ records: [body], meta: {}, next: null });
    const nested: UpstreamSpec = { path: 'stats', records: { object: 'stats' }, paging: { type: 'none' } };
    body = { stats: { calls: 3 } };
    expect((await listDeclared(ctx, nested, {})).records).toEqual([{ calls: 3 }]);
    body = { other: 1 };
    await expect(listDeclared(ctx, nested, {})).rejects.toThrow(/no object at 'stats'/);
  });

  it('hooks map records, rewrite the query and turn a list into a POST search', async () => {
    const spec: UpstreamSpec = { path: 'search', records: 'items', paging: { type: 'none' } };
    let seen: RequestInit = {};
    const { ctx, urls } = contextWith((_, init) => {
      seen = init;
      return json({ items: [{ id: 1 }] });
    });
    const page = await listDeclared(
      ctx,
      spec,
      { range: { start: 'a' }, size: 5 },
      {
        body: (params) => ({ range: params.range }),
        query: ({ range: _range, ...rest }) => rest,
        record: (r, params) => ({ ...r, size: params.size }),
      },
    );
    expect(seen.method).toBe('POST');
    expect(JSON.parse(String(seen.body))).toEqual({ range: { start: 'a' } });
    expect(urls[0]?.search).toBe('?size=5');
    expect(page).toEqual({ records: [{ id: 1, size: 5 }], meta: {}, next: null });
  });
});

describe('checkedNextUrl', () => {
  const { ctx } = contextWith(() => json({}));
  it('accepts this list on this origin (a .json suffix too) and refuses anything else', () => {
    expect(checkedNextUrl(ctx, 'a/b', 'next', `${BASE}/a/b.json?page=2`)).toBe(`${BASE}/a/b.json?page=2`);
    for (const other of [
      `https://evil.test/v1/a/b?page=2`,
      `${BASE}/a/c?page=2`,
      'nope',
      `https://u:p@api.example.test/v1/a/b`,
    ]) {
      expect(() => checkedNextUrl(ctx, 'a/b', 'next', other), other).toThrow(ConnectorError);
    }
  });
});

describe('getDeclared and readDeclared', () => {
  it('gets the record at its declared place with default query values', async () => {
    const { ctx, urls } = contextWith(() => json({ thing: { id: 7 } }));
    const spec: UpstreamSpec = {
      path: 'things',
      records: 'things',
      paging: { type: 'none' },
      get: { path: 'things/{id}', record: 'thing', defaults: { fields: '*' } },
    };
    expect(await getDeclared(ctx, spec, { id: 7 })).toEqual({ id: 7 });
    expect(urls[0]?.toString()).toBe(`${BASE}/things/7?fields=*`);
    const { ctx: empty } = contextWith(() => json({}));
    await expect(getDeclared(empty, spec, { id: 7 })).rejects.toThrow(/no object at 'thing'/);
  });

  it('reads from the declared first params, the parent and since, and checkpoints the next params', async () => {
    const spec: UpstreamSpec = {
      path: 'p/{parent}/items',
      records: 'items',
      paging: { type: 'page_token', param: 'token', nextAt: 'next' },
      read: { params: { size: 100 }, since: { param: 'after', format: 'day' } },
    };
    const { ctx, urls } = contextWith((url) =>
      json({
        items: [{ id: url.searchParams.get('token') ?? 'first' }],
        next: url.searchParams.get('token') ? null : 't2',
      }),
    );
    const pages = [];
    for await (const page of readDeclared(ctx, spec, { since: '2024-05-06T00:00:00Z', parentParams: { parent: 'x' } }))
      pages.push(page);
    expect(urls[0]?.toString()).toBe(`${BASE}/p/x/items?size=100&after=2024-05-06`);
    expect(pages.map((p) => p.checkpoint)).toEqual([
      { size: 100, parent: 'x', after: '2024-05-06', token: 't2' },
      null,
    ]);
  });

  it('reads from first params the kind computes, and resumes at a checkpoint', async () => {
    const cursor: UpstreamSpec['paging'] = { type: 'cursor', param: 'cursor', nextAt: 'next' };
    const spec: UpstreamSpec = { path: 'items', records: 'items', paging: cursor };
    const { ctx, urls } = contextWith((url) =>
      json({
        items: [{ id: url.searchParams.get('cursor') ?? 'first' }],
        next: url.searchParams.get('cursor') ? null : 'c2',
      }),
    );
    const pages = [];
    for await (const page of readListing(ctx, spec, { q: 'x' }, undefined)) pages.push(page);
    expect(pages).toEqual([
      { records: [{ id: 'first' }], checkpoint: { q: 'x', cursor: 'c2' } },
      { records: [{ id: 'c2' }], checkpoint: null },
    ]);
    const resumed = [];
    for await (const page of readListing(ctx, spec, { q: 'x' }, { q: 'x', cursor: 'c2' })) resumed.push(page);
    expect(resumed).toEqual([{ records: [{ id: 'c2' }], checkpoint: null }]);
    expect(urls.map((u) => u.search)).toEqual(['?q=x', '?q=x&cursor=c2', '?q=x&cursor=c2']);
  });
});
