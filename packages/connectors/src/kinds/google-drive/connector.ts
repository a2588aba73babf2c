import { credentialsOAuth } from '../../core/auth.ts';
import {
  type ConnectorContext,
  defineConnector,
  type EntityOperations,
  type Params,
  type ReadRequest,
} from '../../core/define-connector.ts';
import { ConnectorError } from '../../core/errors.ts';
import { pathOf } from '../../core/http-client.ts';
import { readByListing } from '../../core/paging.ts';
import { googleDriveCatalog } from './catalog.ts';
import { classifyDrive, driveJson } from './drive-http.ts';
import { files, filesExport, filesUpload } from './files.ts';
import { listFields, pageResult, queryOf } from './mapping.ts';

/** Google's OAuth token endpoint (https://developers.google.com/identity/protocols/oauth2/web-server#offline). */
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

/** The catalog's credentials: refresh_token, client_id and client_secret required, access_token optional. */
interface DriveCredentials {
  access_token?: string;
  refresh_token: string;
  client_id: string;
  client_secret: string;
}

interface Collection {
  /** Key of the record list in the list body (`permissions`). */
  readonly key: string;
  /** Path params, outermost first (`fileId`, `commentId`); the last `idParam` names one record for get. */
  readonly parents: readonly string[];
  readonly idParam: string;
  /** Path segments between the parents: `['files', 'comments', 'replies']` zipped with the parent ids. */
  readonly segments: readonly string[];
  /** Replication: the query param that filters by `since` upstream (comments: startModifiedTime). */
  readonly sinceParam?: string;
  readonly readPageSize: number;
}

function listPath(collection: Collection, params: Params): string {
  const parts: string[] = [];
  collection.segments.forEach((segment, index) => {
    parts.push(segment);
    const parent = collection.parents[index];
    if (parent !== undefined) parts.push(String(params[parent]));
  });
  return pathOf(...parts);
}

/** list/get/read of a paged Drive collection; `fields` defaults to `*` (see mapping.ts). */
function collection(spec: Collection): EntityOperations {
  const pathParams = [...spec.parents, spec.idParam];
  const list = async (ctx: ConnectorContext, params: Params) => {
    const body = await driveJson<Record<string, unknown>>(ctx, {
      path: listPath(spec, params),
      query: { ...queryOf(params, pathParams), fields: listFields(params.fields, ['nextPageToken']) },
    });
    return pageResult(body, spec.key, params);
  };
  return {
    list,
    get: (ctx, params) =>
      driveJson(ctx, {
        path: `${listPath(spec, params)}/${pathOf(String(params[spec.idParam]))}`,
        query: { ...queryOf(params, pathParams), fields: typeof params.fields === 'string' ? params.fields : '*' },
      }),
    read: (ctx, request: ReadRequest) => {
      const first: Params = { pageSize: spec.readPageSize };
      for (const parent of spec.parents) {
        const value = request.parentParams?.[parent];
        if (typeof value !== 'string' || value === '') {
          throw new ConnectorError(
            'invalid_request',
            `${spec.key} are read per parent: parentParams.${parent} is required`,
          );
        }
        first[parent] = value;
      }
      if (spec.sinceParam) first[spec.sinceParam] = new Date(request.since).toISOString();
      return readByListing((p) => list(ctx, p), first, request.resume);
    },
  };
}

const changes: EntityOperations = {
  // https://developers.google.com/workspace/drive/api/reference/rest/v3/changes/list: the last page carries
  // newStartPageToken (the token for the next poll) instead of nextPageToken.
  list: async (ctx, params) => {
    const body = await driveJson<Record<string, unknown>>(ctx, {
      path: 'changes',
      query: { ...queryOf(params, []), fields: listFields(params.fields, ['nextPageToken', 'newStartPageToken']) },
    });
    const page = pageResult(body, 'changes', params);
    return {
      ...page,
      meta: {
        ...page.meta,
        newStartPageToken: typeof body.newStartPageToken === 'string' ? body.newStartPageToken : null,
      },
    };
  },
};

export const googleDriveConnector = defineConnector({
  catalog: googleDriveCatalog,
  defaultBaseUrl: 'https://www.googleapis.com/drive/v3',
  classify: classifyDrive,
  // Form-encoded client authentication at the token endpoint; rotated refresh tokens are stored.
  auth: ({ credentials, settings }) =>
    credentialsOAuth(credentials as DriveCredentials, settings, { tokenUrl: GOOGLE_TOKEN_URL, clientAuth: 'form' }),
  entities: {
    files,
    files_upload: filesUpload,
    files_export: filesExport,
    drives: collection({ key: 'drives', parents: [], idParam: 'driveId', segments: ['drives'], readPageSize: 100 }),
    permissions: collection({
      key: 'permissions',
      parents: ['fileId'],
      idParam: 'permissionId',
      segments: ['files', 'permissions'],
      readPageSize: 100,
    }),
    comments: collection({
      key: 'comments',
      parents: ['fileId'],
      idParam: 'commentId',
      segments: ['files', 'comments'],
      sinceParam: 'startModifiedTime',
      readPageSize: 100,
    }),
    replies: collection({
      key: 'replies',
      parents: ['fileId', 'commentId'],
      idParam: 'replyId',
      segments: ['files', 'comments', 'replies'],
      readPageSize: 100,
    }),
    revisions: collection({
      key: 'revisions',
      parents: ['fileId'],
      idParam: 'revisionId',
      segments: ['files', 'revisions'],
      readPageSize: 1000,
    }),
    changes,
    changes_start_page_token: {
      get: (ctx, params) => driveJson(ctx, { path: 'changes/startPageToken', query: queryOf(params, []) }),
    },
    about: {
      get: (ctx, params) =>
        driveJson(ctx, { path: 'about', query: { fields: typeof params.fields === 'string' ? params.fields : '*' } }),
    },
  },
});
