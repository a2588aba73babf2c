import { bearerAuth, credentialsOAuth } from '../../core/auth.ts';
import {
  type ContextOf,
  defineConnector,
  type EntityOperations,
  type ListPage,
  type Params,
  type ReadPage,
  type ReadRequest,
} from '../../core/define-connector.ts';
import { pathOf } from '../../core/http-client.ts';
import { fillPath, queryParams, readDeclared } from '../../core/listing.ts';
import { readByListing } from '../../core/paging.ts';
import { typeformCatalog } from './catalog.ts';
import { nextResponsesParams, pageMeta, responseRecords, type TypeformList, typeformInstant } from './mapping.ts';

type TypeformContext = ContextOf<typeof typeformCatalog>;

/** Typeform's largest page of responses. */
const MAX_RESPONSES_PAGE_SIZE = 1000;

// The forms list holds summaries only (no fields, logic, screens, workspace): replication reads each
// full definition with GET /forms/{id} (https://www.typeform.com/developers/create/reference/retrieve-form/).
async function* readForms(ctx: TypeformContext, request: ReadRequest): AsyncIterable<ReadPage> {
  for await (const page of readDeclared(ctx, typeformCatalog.entities.forms!.upstream!, request)) {
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
  const { path, used } = fillPath('forms/{form_id}/responses', params);
  const query = queryParams(params, used);
  for (const bound of ['since', 'until'] as const) {
    if (typeof params[bound] === 'string') query[bound] = typeformInstant(params[bound]);
  }
  const body = await ctx.http.json<TypeformList>({ path, query, signal: ctx.signal });
  const records = responseRecords(body, String(params.form_id));
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

const responses: EntityOperations<TypeformContext> = { list: listResponses, read: readResponses };

/** Webhooks carry no form_id; document 2 lists it, so it is added from the request. */
const webhooks: EntityOperations<TypeformContext> = {
  hooks: { record: (record, params) => ({ form_id: params.form_id, ...record }) },
};

/** forms, workspaces, themes, images and webhooks are declared in the catalog; responses page by token. */
export const typeformConnector = defineConnector({
  catalog: typeformCatalog,
  defaultBaseUrl: 'https://api.typeform.com',
  auth: ({ credentials, settings }) => {
    if (!('refresh_token' in credentials)) return bearerAuth(credentials.access_token);
    // Typeform rotates refresh tokens: each refresh returns a new one that must be stored
    // (https://www.typeform.com/developers/get-started/applications/#refresh-the-token).
    return credentialsOAuth(credentials, settings, { tokenUrl: typeformCatalog.tokenUrl!, clientAuth: 'form' });
  },
  entities: { forms: { read: readForms }, responses, webhooks },
});
