import { hexId, instantBetween, int, pick, type SeededDataOptions, seededRandom } from '../kit/random.ts';
import { buildFile, changeOf, FOLDER } from './file-factory.ts';

export { FOLDER };

export type DriveRecord = Record<string, unknown> & { id: string };
export type DriveFile = DriveRecord & {
  name: string;
  mimeType: string;
  modifiedTime: string;
  parents: string[];
  trashed: boolean;
};

export const DOCUMENT = 'application/vnd.google-apps.document';
export const SPREADSHEET = 'application/vnd.google-apps.spreadsheet';

/** What the simulator keeps beside a file's metadata: how to generate its bytes (never stored whole). */
export interface FileContent {
  /** Binary files: the byte length of the generated content. */
  size?: number;
  /** Docs Editors files: the byte length any export produces. */
  exportSize?: number;
}

export interface DriveUser {
  kind: string;
  displayName: string;
  emailAddress: string;
  permissionId: string;
  me: boolean;
  photoLink: string | null;
}

export interface DriveData {
  rootId: string;
  user: DriveUser;
  files: DriveFile[];
  contents: Map<string, FileContent>;
  drives: DriveRecord[];
  permissions: Map<string, DriveRecord[]>;
  comments: Map<string, (DriveRecord & { replies: DriveRecord[] })[]>;
  revisions: Map<string, DriveRecord[]>;
  /** The change log; a change's id is its 1-based position. */
  changes: DriveRecord[];
}

export interface DriveDataOptions extends SeededDataOptions {
  /** Ordinary files (folders, documents and a large file come on top). */
  files?: number;
  /** Byte size of the large binary file `large.bin` (generated as a stream on download). */
  largeFileBytes?: number;
}

export const LARGE_FILE_NAME = 'large.bin';
export const HUGE_DOCUMENT_NAME = 'Huge report';
/** Deterministic Drive-shaped data (https://developers.google.com/workspace/drive/api/reference/rest/v3). */
export function generateDriveData(options: DriveDataOptions = {}): DriveData {
  const random = seededRandom(options.seed ?? 11);
  const from = options.from ?? '2023-01-01T00:00:00Z';
  const to = options.to ?? '2025-06-30T00:00:00Z';
  const user: DriveUser = {
    kind: 'drive#user',
    displayName: 'Test User',
    emailAddress: 'user@example.com',
    permissionId: '0123456789',
    me: true,
    photoLink: null,
  };
  const rootId = `0A${hexId(random, 16)}`;
  const data: DriveData = {
    rootId,
    user,
    files: [],
    contents: new Map(),
    drives: [],
    permissions: new Map(),
    comments: new Map(),
    revisions: new Map(),
    changes: [],
  };
  for (let d = 0; d < 3; d++) {
    data.drives.push({
      kind: 'drive#drive',
      id: `0A${hexId(random, 17)}`,
      name: `Team drive ${d}`,
      colorRgb: pick(random, ['#4986e7', '#16a765', '#f83a22']),
      backgroundImageLink: null,
      themeId: null,
      createdTime: new Date(instantBetween(random, from, to)).toISOString(),
      hidden: false,
      orgUnitId: null,
      backgroundImageFile: null,
      capabilities: { canAddChildren: true, canComment: true, canDownload: true, canManageMembers: d === 0 },
      restrictions: {
        adminManagedRestrictions: false,
        copyRequiresWriterPermission: false,
        domainUsersOnly: false,
        driveMembersOnly: false,
      },
    });
  }
  const folders: string[] = [rootId];
  const add = (name: string, mimeType: string, content: FileContent, driveId: string | null = null) => {
    const created = instantBetween(random, from, to);
    const modified = Math.min(created + int(random, 0, 90) * 86_400_000 + int(random, 0, 999), Date.parse(to));
    const file = buildFile(random, data, {
      name,
      mimeType,
      created,
      modified,
      content,
      driveId,
      parent: driveId ?? pick(random, folders),
    });
    data.files.push(file);
    data.contents.set(file.id, content);
    return file;
  };
  for (let i = 0; i < 3; i++) folders.push(add(`Folder ${i}`, FOLDER, {}).id);
  const count = options.files ?? 40;
  for (let i = 0; i < count; i++) {
    const kind = i % 5;
    if (kind === 0) add(`Document ${i}`, DOCUMENT, { exportSize: int(random, 200, 20_000) });
    else if (kind === 1) add(`Sheet ${i}`, SPREADSHEET, { exportSize: int(random, 200, 5_000) });
    else if (kind === 2)
      add(
        `notes-${i}.txt`,
        'text/plain',
        { size: int(random, 64, 4096) },
        i % 3 === 0 ? pick(random, data.drives).id : null,
      );
    else add(`photo-${i}.png`, 'image/png', { size: int(random, 1024, 65_536) });
  }
  add(LARGE_FILE_NAME, 'application/octet-stream', { size: options.largeFileBytes ?? 200 * 1024 * 1024 });
  add(HUGE_DOCUMENT_NAME, DOCUMENT, { exportSize: 11 * 1024 * 1024 });
  for (const file of [...data.files].sort((a, b) => a.modifiedTime.localeCompare(b.modifiedTime))) {
    data.changes.push(changeOf(file, data.changes.length + 1));
  }
  return data;
}
