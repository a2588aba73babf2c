import { credentialsOAuth } from '../../core/auth.ts';
import { defineConnector, type EntityOperations } from '../../core/define-connector.ts';
import { googleDriveCatalog } from './catalog.ts';
import { classifyDrive, driveJson } from './drive-http.ts';
import { files, filesExport, filesUpload } from './files.ts';
import { listFields, pageResult, queryOf } from './mapping.ts';

/**
 * The declared collections (drives, permissions, comments, replies, revisions): Drive takes lists as
 * comma-separated values, and a caller's own `fields` selection keeps the paging field (see mapping.ts).
 */
const collection: EntityOperations = {
  hooks: {
    query: (query, params) => ({
      ...Object.fromEntries(Object.entries(query).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v])),
      fields: listFields(params.fields, ['nextPageToken']),
    }),
  },
};

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
    credentialsOAuth(credentials, settings, { tokenUrl: googleDriveCatalog.tokenUrl!, clientAuth: 'form' }),
  entities: {
    files,
    files_upload: filesUpload,
    files_export: filesExport,
    drives: collection,
    permissions: collection,
    comments: collection,
    replies: collection,
    revisions: collection,
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
