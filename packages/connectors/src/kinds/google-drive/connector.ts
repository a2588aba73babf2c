import { credentialsOAuth } from '../../core/auth.ts';
import { defineConnector, type EntityOperations } from '../../core/define-connector.ts';
import { googleDriveCatalog } from './catalog.ts';
import { classifyDrive, driveJson } from './drive-http.ts';
import { changesHooks, files, filesExport, filesUpload } from './files.ts';
import { driveListHooks, queryOf } from './mapping.ts';

/**
 * The declared collections (drives, permissions, comments, replies, revisions) and the changes list: Drive takes
 * lists as comma-separated values, and a caller's own `fields` selection keeps the paging fields (see mapping.ts).
 */
const collection: EntityOperations = { hooks: driveListHooks(['nextPageToken']) };

export const googleDriveConnector = defineConnector({
  catalog: googleDriveCatalog,
  defaultBaseUrl: 'https://www.googleapis.com/drive/v3',
  classify: classifyDrive,
  // Rotated refresh tokens are stored.
  auth: ({ credentials, settings }) => credentialsOAuth(credentials, settings, googleDriveCatalog.auth!),
  authAsData: {
    type: 'oauth2',
    grant: 'refresh_token',
    token_url: googleDriveCatalog.auth!.tokenUrl,
    client_auth: googleDriveCatalog.auth!.clientAuth,
  },
  entities: {
    files,
    files_upload: filesUpload,
    files_export: filesExport,
    drives: collection,
    permissions: collection,
    comments: collection,
    replies: collection,
    revisions: collection,
    changes: { hooks: changesHooks },
    changes_start_page_token: {
      get: (ctx, params) => driveJson(ctx, { path: 'changes/startPageToken', query: queryOf(params, []) }),
    },
    about: {
      get: (ctx, params) =>
        driveJson(ctx, { path: 'about', query: { fields: typeof params.fields === 'string' ? params.fields : '*' } }),
    },
  },
});
