import { z } from 'zod';
import {
  defineCatalog,
  type EntityCatalog,
  entity,
  type Paging,
  REFRESHING_CREDENTIALS,
  type UpstreamSpec,
} from '../../core/catalog.ts';
import {
  isoDateTime,
  noConfig,
  pathId,
  refreshingOAuthCredentials,
  startDateReplicationConfig,
} from '../../core/common-schemas.ts';
import { type FieldMap, notNull, t } from '../../core/field-spec.ts';
import { fields } from '../../core/fields.ts';
import { GOOGLE_CONSENT, GOOGLE_OAUTH } from '../google-oauth.ts';

/*
 * File storage = Google Drive API v3, https://www.googleapis.com/drive/v3 (+ the upload host).
 * Sources: the Drive v3 reference (discovery document), for every entity's fields and parameters.
 * File storage records declare every field nullable except the identifier.
 *
 * SEARCH: file storage kinds have, by convention, no search action and no searchable fields. Deliberate
 * extension: `files` is searchable, over its record fields, and replicated
 * from start_date (files modified since then, not trashed), kept current through Drive's changes feed
 * (changes/startPageToken, then changes with its page tokens; removed or trashed files leave the copy). The other
 * entities stay unsearchable.
 */

// ---------------------------------------------------------------------------------------------------------------
// Shared parameter rules
// ---------------------------------------------------------------------------------------------------------------

/** A media type such as application/pdf or application/vnd.google-apps.folder. */
const mediaType = z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a media type, e.g. application/pdf');

/**
 * `range_header`: a single HTTP byte range, `bytes=<first>-[<last>]` or `bytes=-<suffix length>`
 * (the form /^bytes=\d*-\d*$/ without the empty `bytes=-`), first ≤ last.
 */
const rangeHeader = z
  .string()
  .regex(/^bytes=(\d+-\d*|-\d+)$/, 'must be a byte range such as bytes=0-99, bytes=100- or bytes=-500')
  .refine((value) => {
    // Runs after the pattern check too (zod v4 does not abort): only judge well-formed ranges here.
    const match = /^bytes=(\d+)-(\d+)$/.exec(value);
    return !match || BigInt(match[1] ?? '0') <= BigInt(match[2] ?? '0');
  }, 'the first byte of the range must not be after the last');

const pageToken = z.string().min(1);
const fieldsParam = z.string().min(1);
const pageSize = (max: number) => z.int().min(1).max(max);
/** One page of a Drive list: up to `max` items, from `pageToken` (the previous page's nextPageToken). */
const page = (max: number) => ({ pageSize: pageSize(max).optional(), pageToken: pageToken.optional() });
/** Which spaces a files or changes list covers. */
const spaces = z
  .string()
  .regex(/^(drive|appDataFolder)(,(drive|appDataFolder))*$/, 'must be drive, appDataFolder or both, comma-separated')
  .optional();
/** Comma-separated ids (addParents, removeParents). */
const idList = z.string().regex(/^[^,\s]+(,[^,\s]+)*$/, 'must be comma-separated ids without spaces');

/** Decoded byte length of a base64 string (without decoding it). */
export function base64DecodedLength(value: string): number {
  const padding = value.endsWith('==') ? 2 : value.endsWith('=') ? 1 : 0;
  return Math.floor((value.length * 3) / 4) - padding;
}

/** files_upload takes files up to 5 MB (the catalog's limits), i.e. 5 × 1024 × 1024 decoded bytes. */
export const MAX_UPLOAD_BYTES = 5 * 1024 * 1024;

const fileContent = z
  .base64('must be base64-encoded content (standard alphabet, with padding)')
  .refine((value) => base64DecodedLength(value) <= MAX_UPLOAD_BYTES, {
    message: `the decoded content must be at most 5 MB (${MAX_UPLOAD_BYTES} bytes); use a resumable upload for larger files`,
  });

/**
 * An id from files/generateIds: Drive creates the file under it once, and answers 409 to any repeat of the create
 * (https://developers.google.com/workspace/drive/api/guides/create-file#generate-ids). A call with an
 * Idempotency-Key gets one added when it has none.
 */
const generatedId = pathId.optional();

// ---------------------------------------------------------------------------------------------------------------
// Records
// ---------------------------------------------------------------------------------------------------------------

const owner = t.object(fields`kind, displayName, photoLink, emailAddress, permissionId: string; me: boolean`);

const fileRecord: FieldMap = fields`
  kind, id!, name, mimeType, description, version, webContentLink,
  webViewLink, iconLink, thumbnailLink, thumbnailVersion: string
  viewedByMeTime, createdTime, modifiedTime, modifiedByMeTime, sharedWithMeTime: datetime
  driveId, folderColorRgb, originalFilename, fullFileExtension, fileExtension, md5Checksum,
  sha1Checksum, sha256Checksum, size, quotaBytesUsed, headRevisionId, resourceKey: string
  trashedTime: datetime
  starred, trashed, explicitlyTrashed, hasThumbnail, viewedByMe, modifiedByMe, shared, ownedByMe,
  viewersCanCopyContent, copyRequiresWriterPermission, writersCanShare, isAppAuthorized: boolean
  parents, spaces: string[]
  owners: ${t.array(owner)}
  permissionIds: string[]
  contentRestrictions: array
  sharingUser, lastModifyingUser, trashingUser, properties, appProperties, capabilities, exportLinks,
  shortcutDetails, linkShareMetadata, labelInfo, imageMediaMetadata, videoMediaMetadata: object
`;

const pageMeta: FieldMap = fields`nextPageToken: string`;

/** Drive's paging: `nextPageToken` in the answer, sent back as `pageToken`. */
const pageTokenPaging = {
  type: 'page_token',
  param: 'pageToken',
  nextAt: 'nextPageToken',
  meta: 'nextPageToken',
} as const satisfies Paging;

/**
 * A paged Drive collection: `{<key>: [...], nextPageToken}` (the key is left out of an empty page); a record is
 * `<path>/{idParam}`. `fields` defaults to `*` (the catalog's full records: Drive answers a few fields otherwise).
 * Replication reads pages of `readPageSize` per parent (the path's ids).
 */
function collection(path: string, key: string, idParam: string, readPageSize: number): UpstreamSpec {
  return {
    path,
    records: key,
    paging: pageTokenPaging,
    get: { path: `${path}/{${idParam}}`, defaults: { fields: '*' } },
    read: { params: { pageSize: readPageSize } },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Entities
// ---------------------------------------------------------------------------------------------------------------

const filesList = z
  .strictObject({
    ...page(1000),
    q: z.string().min(1).optional(),
    orderBy: z.string().min(1).optional(),
    fields: fieldsParam.optional(),
    spaces,
    corpora: z.enum(['user', 'drive', 'allDrives']).optional(),
    driveId: pathId.optional(),
    includeItemsFromAllDrives: z.boolean().optional(),
    supportsAllDrives: z.boolean().optional(),
  })
  .superRefine((p, ctx) => {
    // The upstream requires driveId with corpora=drive.
    if (p.corpora === 'drive' && p.driveId === undefined) {
      ctx.addIssue({ code: 'custom', path: ['driveId'], message: 'is required when corpora is drive' });
    }
  });

const files = entity({
  name: 'files',
  // GET /files pages like the collections and says whether the search covered every corpus; replication reads
  // the changes feed instead (the connector's own).
  upstream: {
    ...collection('files', 'files', 'fileId', 1000),
    meta: { incompleteSearch: 'incompleteSearch' },
  },
  record: fileRecord,
  meta: { ...pageMeta, incompleteSearch: t.boolean() },
  // A file's name and description say what it holds: searched by meaning (docs/search.md).
  embed: ['name', 'description'],
  actions: {
    list: filesList,
    get: z.strictObject({ fileId: pathId, fields: fieldsParam.optional(), supportsAllDrives: z.boolean().optional() }),
    // Metadata only. mimeType: the vendor's folder/document/spreadsheet types create a folder/document/spreadsheet.
    create: z.strictObject({
      name: z.string().min(1),
      mimeType: mediaType.optional(),
      parents: z.array(pathId).min(1).optional(),
      description: z.string().optional(),
      id: generatedId,
    }),
    update: z.strictObject({
      fileId: pathId,
      name: z.string().min(1).optional(),
      description: z.string().optional(),
      mimeType: mediaType.optional(),
      addParents: idList.optional(),
      removeParents: idList.optional(),
      supportsAllDrives: z.boolean().optional(),
    }),
    // Permanent delete, bypassing the trash.
    delete: z.strictObject({ fileId: pathId, supportsAllDrives: z.boolean().optional() }),
    // Content of non-workspace files (workspace documents are exported with files_export).
    download: z.strictObject({
      fileId: pathId,
      alt: z.literal('media', { error: "must be 'media'" }),
      acknowledgeAbuse: z.boolean().optional(),
      supportsAllDrives: z.boolean().optional(),
      range_header: rangeHeader.optional(),
    }),
  },
  sync: { mode: 'incremental' },
  // The changes feed sees every edit and every removal (a trashed file is a change whose file says trashed), so no
  // periodic full pass is needed; Drive documents no delay for it.
  changeCapture: {
    seesEdits: true,
    seesDeletions: true,
    lookbackMs: 0,
    cursor: 'feed',
    source:
      'https://developers.google.com/workspace/drive/api/guides/manage-changes; Drive v3 reference changes.list (removed, file.trashed, newStartPageToken)',
  },
});

// Multipart upload (metadata + content in one request); returns a files record.
const filesUpload = entity({
  name: 'files_upload',
  record: fileRecord,
  actions: {
    create: z.strictObject({
      name: z.string().min(1),
      file_content: fileContent,
      id: generatedId,
      mimeType: mediaType.optional(),
      parents: z.array(pathId).min(1).optional(),
      description: z.string().optional(),
      file_mime_type: mediaType.optional(), // the connector defaults it to application/octet-stream
      uploadType: z.literal('multipart', { error: "only 'multipart' is supported" }).optional(),
      supportsAllDrives: z.boolean().optional(),
    }),
  },
  writesTo: 'files',
});

// Export of a workspace document to mimeType; the answer is the bytes themselves (upstream cap: 10 MB), so there
// is no record: the record map is empty and the key only nominal.
const filesExport = entity({
  name: 'files_export',
  record: {},
  actions: {
    download: z.strictObject({ fileId: pathId, mimeType: mediaType, range_header: rangeHeader.optional() }),
  },
});

const driveRecord: FieldMap = fields`
  kind, id!, name, colorRgb, backgroundImageLink, themeId: string
  createdTime: datetime
  orgUnitId: string
  hidden: boolean
  backgroundImageFile, capabilities, restrictions: object
`;

const drives = entity({
  name: 'drives',
  upstream: collection('drives', 'drives', 'driveId', 100),
  record: driveRecord,
  meta: pageMeta,
  actions: {
    list: z.strictObject({
      ...page(100),
      q: z.string().min(1).optional(),
      useDomainAdminAccess: z.boolean().optional(),
    }),
    get: z.strictObject({ driveId: pathId, useDomainAdminAccess: z.boolean().optional() }),
  },
});

const permissionRecord: FieldMap = fields`
  kind, id!, type, emailAddress, domain, role, view, displayName, photoLink: string
  expirationTime: datetime
  allowFileDiscovery, deleted, pendingOwner: boolean
  teamDrivePermissionDetails, permissionDetails: array
`;

/** Items of shared drives, and a domain administrator's access to every item of the domain. */
const permissionAccess = { supportsAllDrives: z.boolean().optional(), useDomainAdminAccess: z.boolean().optional() };

const permissions = entity({
  name: 'permissions',
  upstream: collection('files/{fileId}/permissions', 'permissions', 'permissionId', 100),
  record: permissionRecord,
  meta: pageMeta,
  actions: {
    list: z.strictObject({ fileId: pathId, ...page(100), ...permissionAccess }),
    get: z.strictObject({ fileId: pathId, permissionId: pathId, ...permissionAccess }),
  },
});

/** The Reply resource, as a comment embeds its replies and as the replies list answers them. */
const replyFields: FieldMap = fields`
  kind, id: string
  createdTime, modifiedTime: datetime
  author: object
  htmlContent, content: string
  deleted: boolean
  action: string
`;

/** Comments and replies: deleted ones on request, and Drive's field selection. */
const discussionOptions = { includeDeleted: z.boolean().optional(), fields: fieldsParam.optional() };

const commentRecord: FieldMap = fields`
  kind, id!: string
  createdTime, modifiedTime: datetime
  htmlContent, content, anchor, assigneeEmailAddress: string
  author: object
  deleted, resolved: boolean
  quotedFileContent: object
  mentionedEmailAddresses: string[]
  replies: ${t.array(t.object(replyFields))}
`;

// `fields` is optional here as in the catalog ("required in practice"): the connector sends a default field
// selection when the caller gives none.
const comments = entity({
  name: 'comments',
  upstream: {
    ...collection('files/{fileId}/comments', 'comments', 'commentId', 100),
    read: { params: { pageSize: 100 }, since: { param: 'startModifiedTime', format: 'iso' } },
  },
  record: commentRecord,
  meta: pageMeta,
  actions: {
    list: z.strictObject({
      fileId: pathId,
      ...page(100),
      startModifiedTime: isoDateTime.optional(), // RFC 3339 lower bound on modifiedTime
      ...discussionOptions,
    }),
    get: z.strictObject({ fileId: pathId, commentId: pathId, ...discussionOptions }),
  },
});

const replyRecord: FieldMap = { ...replyFields, id: notNull(t.string()) };

const replies = entity({
  name: 'replies',
  upstream: collection('files/{fileId}/comments/{commentId}/replies', 'replies', 'replyId', 100),
  record: replyRecord,
  meta: pageMeta,
  actions: {
    list: z.strictObject({ fileId: pathId, commentId: pathId, ...page(100), ...discussionOptions }),
    get: z.strictObject({ fileId: pathId, commentId: pathId, replyId: pathId, ...discussionOptions }),
  },
});

// ---- Fields and parameters from the Drive v3 reference. ----

// Revision resource (GET files/{fileId}/revisions, pageSize 1-1000).
const revisionRecord: FieldMap = fields`
  kind, id!, mimeType: string
  modifiedTime: datetime
  keepForever, published: boolean
  publishedLink: string
  publishAuto, publishedOutsideDomain: boolean
  lastModifyingUser: object
  originalFilename, md5Checksum, size: string
  exportLinks: object
`;

const revisions = entity({
  name: 'revisions',
  upstream: collection('files/{fileId}/revisions', 'revisions', 'revisionId', 1000),
  record: revisionRecord,
  meta: pageMeta,
  actions: {
    list: z.strictObject({ fileId: pathId, ...page(1000), fields: fieldsParam.optional() }),
    get: z.strictObject({
      fileId: pathId,
      revisionId: pathId,
      acknowledgeAbuse: z.boolean().optional(),
      fields: fieldsParam.optional(),
    }),
  },
});

// Change resource (GET changes; pageToken required: from changes_start_page_token or a previous page). A change has
// no id of its own and this entity is not replicated, so the key (the changed file's id) is only nominal.
const changeRecord: FieldMap = fields`
  kind: string
  changeType: string // file or drive
  time: datetime
  removed: boolean
  fileId: string
  file: object
  driveId: string
  drive: object
`;

const changes: EntityCatalog = {
  name: 'changes',
  recordKey: 'fileId',
  // https://developers.google.com/workspace/drive/api/reference/rest/v3/changes/list: the last page carries
  // newStartPageToken (the token for the next poll) instead of nextPageToken.
  upstream: {
    path: 'changes',
    records: 'changes',
    paging: pageTokenPaging,
    meta: { newStartPageToken: 'newStartPageToken' },
  },
  record: changeRecord,
  // newStartPageToken: on the last page, the token to poll from next time.
  meta: { ...pageMeta, newStartPageToken: t.string() },
  actions: {
    list: z.strictObject({
      pageToken,
      pageSize: pageSize(1000).optional(),
      driveId: pathId.optional(),
      includeItemsFromAllDrives: z.boolean().optional(),
      supportsAllDrives: z.boolean().optional(),
      includeRemoved: z.boolean().optional(),
      includeCorpusRemovals: z.boolean().optional(),
      restrictToMyDrive: z.boolean().optional(),
      spaces,
      fields: fieldsParam.optional(),
    }),
  },
};

// StartPageToken resource (GET changes/startPageToken).
const changesStartPageToken: EntityCatalog = {
  name: 'changes_start_page_token',
  recordKey: 'startPageToken',
  record: fields`kind, startPageToken!: string`,
  actions: {
    get: z.strictObject({ driveId: pathId.optional(), supportsAllDrives: z.boolean().optional() }),
  },
};

// About resource (GET about). The upstream rejects about.get without `fields`, so it is required here
// (e.g. "user,storageQuota" or "*").
const about: EntityCatalog = {
  name: 'about',
  recordKey: 'user.permissionId',
  record: fields`
    kind: string
    user, storageQuota: object
    driveThemes: array
    canCreateDrives: boolean
    importFormats, exportFormats: object
    appInstalled: boolean
    maxImportSizes: object
    maxUploadSize: string
    folderColorPalette: string[]
  `,
  actions: { get: z.strictObject({ fields: fieldsParam }) },
};

export const googleDriveCatalog = defineCatalog({
  connectorType: 'Google-Drive',
  copyVersion: {
    by: 'read_instant',
    why: "A file's `version` increases with every change, but it counts per file from 1 and a removal (trashed, deleted, a feed's removal) has none, so it cannot be ordered against a removal's read instant.",
    source: 'https://developers.google.com/workspace/drive/api/reference/rest/v3/files',
  },
  rateLimit: {
    perSecond: null,
    scope:
      'quota units per minute per user and per project, a different cost per method; 403 userRateLimitExceeded or 429',
    source: 'https://developers.google.com/workspace/drive/api/guides/limits',
  },
  purpose: 'file storage',
  auth: {
    ...GOOGLE_OAUTH,
    consent: {
      ...GOOGLE_CONSENT,
      scopes: ['https://www.googleapis.com/auth/drive'],
      credentials: REFRESHING_CREDENTIALS,
    },
  },
  // OAuth 2.0 with refresh (Google access tokens live one hour).
  credentials: refreshingOAuthCredentials,
  // The start_date rule of every kind, kept for uniformity although nothing of this kind is replicated.
  replicationConfig: startDateReplicationConfig,
  config: noConfig,
  entities: {
    files,
    files_upload: filesUpload,
    files_export: filesExport,
    drives,
    permissions,
    comments,
    replies,
    revisions,
    changes,
    changes_start_page_token: changesStartPageToken,
    about,
  },
});
