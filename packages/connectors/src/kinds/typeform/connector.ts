import { bearerAuth, credentialsOAuth } from '../../core/auth.ts';
import {
  type ConnectorContext,
  defineConnector,
  type EntityOperations,
  type ListPage,
  type Params,
  type ReadPage,
  type ReadRequest,
} from '../../core/define-connector.ts';
import { ConnectorError } from '../../core/errors.ts';
import type { QueryValue } from '../../core/http-client.ts';
import { pathOf } from '../../core/http-client.ts';
import { readByListing, recordsAt } from '../../core/paging.ts';
import { typeformCatalog } from './catalog.ts';
import {
  nextPageParams,
  nextResponsesParams,
  pageMeta,
  responseRecords,
  type TypeformList,
  typeformInstant,
} from './mapping.ts';

/** Personal access token, or an OAuth access token with what refreshing it needs. */
interface TypeformCredentials {
  readonly access_token: string;
  readonly refresh_token?: string | undefined;
  readonly client_id?: string | undefined;
  readonly client_secret?: string | undefined;
}

type TypeformContext = ConnectorContext<TypeformCredentials, Record<string, never>>;

const TOKEN_URL = 'https://api.typeform.com/oauth/token';
/** Typeform's largest page sizes: 200 for forms/workspaces/themes, 1000 for responses. */
const MAX_PAGE_SIZE = 200;
const MAX_RESPONSES_PAGE_SIZE = 1000;

/**
 * The form id of a call. `pathOf` escapes `/`, but `.` and `..` stay dot segments that URL resolution would
 * apply (`forms/..` is the API root), so they are refused.
 */
function formIdOf(params: Params): string {
  const id = String(params.form_id);
  if (/^(\.|%2e){1,2}$/i.test(id)) {
    throw new ConnectorError('invalid_params', 'invalid params', [
      { path: '/params/form_id', message: 'must not be . or ..' },
    ]);
  }
  return id;
}

function queryOf(params: Params, skip: readonly string[] = []): Record<string, QueryValue> {
  const query: Record<string, QueryValue> = {};
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || skip.includes(key)) continue;
    query[key] = typeof value === 'boolean' ? String(value) : (value as QueryValue);
  }
  return query;
}

/** forms, workspaces, themes: `?page&page_size` → `{total_items, page_count, items}`. */
function pagedList(path: string) {
  return async (ctx: TypeformContext, params: Params): Promise<ListPage> => {
    const body = await ctx.http.json<TypeformList>({ path, query: queryOf(params), signal: ctx.signal });
    const records = recordsAt(body, 'items');
    return { records, meta: pageMeta(body), next: nextPageParams(params, body, records) };
  };
}

function readPaged(list: (ctx: TypeformContext, params: Params) => Promise<ListPage>) {
  return (ctx: TypeformContext, request: ReadRequest): AsyncIterable<ReadPage> =>
    readByListing((p) => list(ctx, p), { page: 1, page_size: MAX_PAGE_SIZE }, request.resume);
}

const listForms = pagedList('forms');

// The forms list holds summaries only (no fields, logic, screens, workspace): replication reads each
// full definition with GET /forms/{id} (https://www.typeform.com/developers/create/reference/retrieve-form/).
async function* readForms(ctx: TypeformContext, request: ReadRequest): AsyncIterable<ReadPage> {
  for await (const page of readByListing(
    (p) => listForms(ctx, p),
    { page: 1, page_size: MAX_PAGE_SIZE },
    request.resume,
  )) {
    const records = [];
    for (const summary of page.records) {
      records.push(
        await ctx.http.json<Record<string, unknown>>({ path: pathOf('forms', String(summary.id)), signal: ctx.signal }),
      );
    }
    yield { records, checkpoint: page.checkpoint };
  }
}

async function listResponses(ctx: TypeformContext, params: Params): Promise<ListPage> {
  const formId = formIdOf(params);
  const query = queryOf(params, ['form_id']);
  for (const bound of ['since', 'until'] as const) {
    if (typeof params[bound] === 'string') query[bound] = typeformInstant(params[bound]);
  }
  const body = await ctx.http.json<TypeformList>({
    path: pathOf('forms', formId, 'responses'),
    query,
    signal: ctx.signal,
  });
  const records = responseRecords(body, formId);
  return { records, meta: pageMeta(body), next: nextResponsesParams(params, body, records) };
}

/**
 * Incremental by submitted_at: `since` + `sort=submitted_at,asc` first, then `after={last token}` until a
 * page comes back empty (the pattern of Airbyte's source-typeform manifest).
 */
function readResponses(ctx: TypeformContext, request: ReadRequest): AsyncIterable<ReadPage> {
  const first: Params = {
    form_id: String(request.parentParams?.form_id ?? ''),
    page_size: MAX_RESPONSES_PAGE_SIZE,
    since: typeformInstant(request.since),
    sort: 'submitted_at,asc',
  };
  return readByListing((p) => listResponses(ctx, p), first, request.resume);
}

// Webhooks of a form come in one unpaged `{items}` (https://www.typeform.com/developers/webhooks/reference/retrieve-webhooks/).
async function listWebhooks(ctx: TypeformContext, params: Params): Promise<ListPage> {
  const formId = formIdOf(params);
  const body = await ctx.http.json<TypeformList>({ path: pathOf('forms', formId, 'webhooks'), signal: ctx.signal });
  return { records: recordsAt(body, 'items').map((r) => ({ form_id: formId, ...r })), meta: {}, next: null };
}

// GET /images answers a bare array, unpaged (https://www.typeform.com/developers/create/reference/retrieve-images-collection/).
async function listImages(ctx: TypeformContext): Promise<ListPage> {
  const body = await ctx.http.json<unknown>({ path: 'images', signal: ctx.signal });
  return { records: recordsAt(body, null), meta: {}, next: null };
}

const forms: EntityOperations<TypeformContext> = {
  list: listForms,
  get: (ctx, params) => ctx.http.json({ path: pathOf('forms', formIdOf(params)), signal: ctx.signal }),
  read: readForms,
};

const responses: EntityOperations<TypeformContext> = { list: listResponses, read: readResponses };

const webhooks: EntityOperations<TypeformContext> = {
  list: listWebhooks,
  read: async function* (ctx, request) {
    const page = await listWebhooks(ctx, { form_id: String(request.parentParams?.form_id ?? '') });
    yield { records: page.records, checkpoint: null };
  },
};

const workspaces: EntityOperations<TypeformContext> = {
  list: pagedList('workspaces'),
  read: readPaged(pagedList('workspaces')),
};
const themes: EntityOperations<TypeformContext> = { list: pagedList('themes'), read: readPaged(pagedList('themes')) };
const images: EntityOperations<TypeformContext> = {
  list: (ctx) => listImages(ctx),
  read: async function* (ctx) {
    yield { records: (await listImages(ctx)).records, checkpoint: null };
  },
};

export const typeformConnector = defineConnector<TypeformCredentials, Record<string, never>>({
  catalog: typeformCatalog,
  defaultBaseUrl: 'https://api.typeform.com',
  auth: ({ credentials, settings }) => {
    if (!credentials.refresh_token) return bearerAuth(credentials.access_token);
    // Typeform rotates refresh tokens: each refresh returns a new one that must be stored
    // (https://www.typeform.com/developers/get-started/applications/#refresh-the-token).
    return credentialsOAuth(credentials, settings, { tokenUrl: TOKEN_URL, clientAuth: 'form' });
  },
  entities: { forms, responses, webhooks, workspaces, images, themes },
});
