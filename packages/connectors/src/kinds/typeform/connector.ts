import { bearerAuth, credentialsOAuth } from '../../core/auth.ts';
import {
  type ContextOf,
  defineConnector,
  type EntityOperations,
  type ReadPage,
  type ReadRequest,
} from '../../core/define-connector.ts';
import { pathOf } from '../../core/http-client.ts';
import { readDeclared } from '../../core/listing.ts';
import { typeformCatalog } from './catalog.ts';
import { responsesDirection, typeformInstant } from './mapping.ts';

type TypeformContext = ContextOf<typeof typeformCatalog>;

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

/**
 * Responses list and read as declared; Typeform's own: the form id added to each response (Typeform's records carry
 * none; the specification lists it), since/until to the second, and the direction of the token paging.
 */
const responses: EntityOperations<TypeformContext> = {
  hooks: {
    record: (record, params) => ({ ...record, form_id: String(params.form_id) }),
    query: (query) => {
      const normalized = { ...query };
      for (const bound of ['since', 'until'] as const) {
        if (typeof query[bound] === 'string') normalized[bound] = typeformInstant(query[bound]);
      }
      return normalized;
    },
    next: responsesDirection,
  },
};

/** Webhooks carry no form_id; the specification lists it, so it is added from the request. */
const webhooks: EntityOperations<TypeformContext> = {
  hooks: { record: (record, params) => ({ form_id: params.form_id, ...record }) },
};

/** Every entity is declared in the catalog; what is Typeform's own is below. */
export const typeformConnector = defineConnector({
  catalog: typeformCatalog,
  defaultBaseUrl: 'https://api.typeform.com',
  auth: ({ credentials, settings }) => {
    if (!('refresh_token' in credentials)) return bearerAuth(credentials.access_token);
    // Typeform rotates refresh tokens: each refresh returns a new one that must be stored
    // (https://www.typeform.com/developers/get-started/applications/#refresh-the-token).
    return credentialsOAuth(credentials, settings, typeformCatalog.auth!);
  },
  authAsData: [
    { type: 'bearer' },
    {
      type: 'oauth2',
      grant: 'refresh_token',
      token_url: typeformCatalog.auth!.tokenUrl,
      client_auth: typeformCatalog.auth!.clientAuth,
    },
  ],
  entities: { forms: { read: readForms }, responses, webhooks },
});
