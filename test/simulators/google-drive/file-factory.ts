import { hexId, int, pick } from '../kit/random.ts';
import type { DriveData, DriveFile, DriveRecord, FileContent } from './data.ts';

export const FOLDER = 'application/vnd.google-apps.folder';
const EXPORT_LINK_TYPES = [
  'application/pdf',
  'text/plain',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
];

export function fileId(random: () => number): string {
  return `1${hexId(random, 32)}`;
}

/** One file's metadata, and its permissions, comments (with replies) and revisions recorded in `data`. */
export interface FileSeed {
  name: string;
  mimeType: string;
  created: number;
  modified: number;
  content: FileContent;
  driveId: string | null;
  parent: string;
  /** An id the caller chose (one files/generateIds handed out); otherwise one is made up. */
  id?: string;
}

/** A permission resource (https://developers.google.com/workspace/drive/api/reference/rest/v3/permissions). */
function permission(who: {
  id: string;
  type: string;
  emailAddress: string;
  role: string;
  displayName: string;
}): DriveRecord {
  return {
    kind: 'drive#permission',
    ...who,
    photoLink: null,
    deleted: false,
    pendingOwner: false,
    domain: 'example.com',
    view: null,
    expirationTime: null,
    allowFileDiscovery: null,
    teamDrivePermissionDetails: [],
    permissionDetails: [],
  };
}

export function buildFile(random: () => number, data: DriveData, seed: FileSeed): DriveFile {
  const id = seed.id ?? fileId(random);
  const binary = seed.content.size !== undefined;
  const extension = binary && seed.name.includes('.') ? seed.name.split('.').pop()! : null;
  const google = seed.mimeType.startsWith('application/vnd.google-apps.');
  const headRevisionId = binary ? `0B${hexId(random, 20)}` : null;
  const owner = { ...data.user };
  const permissionId = `p${hexId(random, 10)}`;
  data.permissions.set(id, [
    permission({
      id: owner.permissionId,
      type: 'user',
      emailAddress: owner.emailAddress,
      role: 'owner',
      displayName: owner.displayName,
    }),
    permission({
      id: permissionId,
      type: pick(random, ['user', 'group']),
      emailAddress: `colleague${int(random, 1, 9)}@example.com`,
      role: pick(random, ['reader', 'commenter', 'writer']),
      displayName: 'Colleague',
    }),
  ]);
  const commentCount = google ? int(random, 0, 3) : 0;
  data.comments.set(
    id,
    Array.from({ length: commentCount }, (_, c) => {
      const commentTime = new Date(seed.modified - (c + 1) * 3_600_000).toISOString();
      return {
        kind: 'drive#comment',
        id: `AAAA${hexId(random, 12)}`,
        createdTime: commentTime,
        modifiedTime: commentTime,
        author: { kind: 'drive#user', displayName: 'Colleague', me: false },
        htmlContent: `Comment <b>${c}</b>`,
        content: `Comment ${c}`,
        deleted: false,
        resolved: random() < 0.3,
        anchor: null,
        quotedFileContent: { mimeType: 'text/html', value: 'quoted' },
        mentionedEmailAddresses: [],
        assigneeEmailAddress: null,
        replies: Array.from({ length: int(random, 0, 2) }, (_, r) => ({
          kind: 'drive#reply',
          id: `AAAB${hexId(random, 12)}`,
          createdTime: commentTime,
          modifiedTime: commentTime,
          author: { kind: 'drive#user', displayName: 'Test User', me: true },
          htmlContent: `Reply ${r}`,
          content: `Reply ${r}`,
          deleted: false,
          action: r === 1 ? 'resolve' : null,
        })),
      };
    }),
  );
  data.revisions.set(
    id,
    Array.from({ length: binary ? 2 : 1 }, (_, r) => ({
      kind: 'drive#revision',
      id: r === (binary ? 1 : 0) && headRevisionId ? headRevisionId : `0B${hexId(random, 20)}`,
      mimeType: seed.mimeType,
      modifiedTime: new Date(seed.modified - (binary ? 1 - r : 0) * 86_400_000).toISOString(),
      keepForever: false,
      published: false,
      lastModifyingUser: owner,
      originalFilename: binary ? seed.name : null,
      md5Checksum: binary ? hexId(random, 32) : null,
      size: binary ? String(seed.content.size) : null,
    })),
  );
  return {
    kind: 'drive#file',
    id,
    name: seed.name,
    mimeType: seed.mimeType,
    description: random() < 0.3 ? `About ${seed.name}` : null,
    starred: random() < 0.2,
    trashed: false,
    explicitlyTrashed: false,
    trashedTime: null,
    trashingUser: null,
    parents: [seed.parent],
    spaces: ['drive'],
    version: String(int(random, 1, 300)),
    webContentLink: binary ? `https://drive.google.com/uc?id=${id}&export=download` : null,
    webViewLink: `https://drive.google.com/file/d/${id}/view`,
    iconLink: `https://drive-thirdparty.googleusercontent.com/16/type/${seed.mimeType}`,
    hasThumbnail: seed.mimeType === 'image/png',
    thumbnailLink: null,
    thumbnailVersion: '0',
    viewedByMe: true,
    viewedByMeTime: new Date(seed.modified).toISOString(),
    createdTime: new Date(seed.created).toISOString(),
    modifiedTime: new Date(seed.modified).toISOString(),
    modifiedByMeTime: new Date(seed.modified).toISOString(),
    modifiedByMe: true,
    sharedWithMeTime: null,
    sharingUser: null,
    owners: seed.driveId ? [] : [owner],
    driveId: seed.driveId,
    lastModifyingUser: owner,
    shared: true,
    ownedByMe: !seed.driveId,
    capabilities: { canEdit: true, canComment: true, canDownload: binary, canDelete: true },
    viewersCanCopyContent: true,
    copyRequiresWriterPermission: false,
    writersCanShare: true,
    permissionIds: [owner.permissionId, permissionId],
    folderColorRgb: seed.mimeType === FOLDER ? '#8f8f8f' : null,
    originalFilename: binary ? seed.name : null,
    fullFileExtension: extension,
    fileExtension: extension,
    md5Checksum: binary ? hexId(random, 32) : null,
    sha1Checksum: binary ? hexId(random, 40) : null,
    sha256Checksum: binary ? hexId(random, 64) : null,
    size: binary ? String(seed.content.size) : null,
    quotaBytesUsed: binary ? String(seed.content.size) : '0',
    headRevisionId,
    isAppAuthorized: false,
    exportLinks:
      google && seed.mimeType !== FOLDER
        ? Object.fromEntries(
            EXPORT_LINK_TYPES.map((t) => [
              t,
              `https://docs.google.com/feeds/download/documents/export/Export?id=${id}&exportFormat=${t}`,
            ]),
          )
        : null,
    resourceKey: null,
    linkShareMetadata: { securityUpdateEligible: false, securityUpdateEnabled: true },
    contentRestrictions: [],
    properties: {},
    appProperties: {},
    shortcutDetails: null,
    labelInfo: null,
    imageMediaMetadata: seed.mimeType === 'image/png' ? { width: 640, height: 480, rotation: 0 } : null,
    videoMediaMetadata: null,
  };
}

export function changeOf(file: DriveFile, position: number, removed = false): DriveRecord {
  return {
    kind: 'drive#change',
    id: String(position),
    changeType: 'file',
    time: removed ? new Date().toISOString() : file.modifiedTime,
    removed,
    fileId: file.id,
    file: removed ? null : file,
    driveId: file.driveId ?? null,
  };
}
