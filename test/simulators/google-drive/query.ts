import type { DriveFile, DriveRecord } from './data.ts';

/**
 * The parts of Drive's request language the simulator understands: the `q` search grammar
 * (https://developers.google.com/workspace/drive/api/guides/search-files) for the clauses connectors send,
 * `orderBy`, and `fields` partial responses (https://developers.google.com/workspace/drive/api/guides/fields-parameter).
 */
export class QueryError extends Error {
  override name = 'QueryError';
}

type Predicate = (file: DriveFile) => boolean;

function unquote(raw: string): string {
  return raw.slice(1, -1).replace(/\\'/g, "'").replace(/\\\\/g, '\\');
}

const QUOTED = String.raw`'(?:[^'\\]|\\.)*'`;
const CLAUSES: readonly [RegExp, (m: RegExpExecArray, rootId: string) => Predicate][] = [
  [
    new RegExp(String.raw`^(modifiedTime|createdTime)\s*(<=|>=|<|>|=|!=)\s*(${QUOTED})$`),
    (m) => {
      const field = m[1] as 'modifiedTime' | 'createdTime';
      const bound = Date.parse(unquote(m[3]!));
      if (Number.isNaN(bound)) throw new QueryError(`Invalid date in query: ${m[3]}`);
      const ops: Record<string, (a: number) => boolean> = {
        '<': (a) => a < bound,
        '<=': (a) => a <= bound,
        '>': (a) => a > bound,
        '>=': (a) => a >= bound,
        '=': (a) => a === bound,
        '!=': (a) => a !== bound,
      };
      const op = ops[m[2]!]!;
      return (f) => op(Date.parse(String(f[field])));
    },
  ],
  [
    new RegExp(String.raw`^(${QUOTED})\s+in\s+parents$`),
    (m, rootId) => {
      const id = unquote(m[1]!);
      const wanted = id === 'root' ? rootId : id;
      return (f) => f.parents.includes(wanted);
    },
  ],
  [/^trashed\s*(=|!=)\s*(true|false)$/, (m) => (f) => (f.trashed === (m[2] === 'true')) === (m[1] === '=')],
  [/^starred\s*(=|!=)\s*(true|false)$/, (m) => (f) => (f.starred === (m[2] === 'true')) === (m[1] === '=')],
  [
    new RegExp(String.raw`^name\s+contains\s+(${QUOTED})$`),
    (m) => (f) => f.name.toLowerCase().includes(unquote(m[1]!).toLowerCase()),
  ],
  [
    new RegExp(String.raw`^(name|mimeType)\s*(=|!=)\s*(${QUOTED})$`),
    (m) => (f) => (f[m[1] as 'name' | 'mimeType'] === unquote(m[3]!)) === (m[2] === '='),
  ],
];

/** Compiles a `q` made of clauses joined by `and` (the subset above); anything else is a 400 like Drive's. */
export function compileQuery(q: string | undefined, rootId: string): Predicate {
  if (!q || q.trim() === '') return () => true;
  const parts = q.split(/\s+and\s+(?=(?:[^']*'[^']*')*[^']*$)/i);
  const predicates = parts.map((raw) => {
    const clause = raw
      .trim()
      .replace(/^\((.*)\)$/, '$1')
      .trim();
    for (const [pattern, build] of CLAUSES) {
      const match = pattern.exec(clause);
      if (match) return build(match, rootId);
    }
    throw new QueryError(`Invalid Value: unsupported query clause ${clause}`);
  });
  return (file) => predicates.every((p) => p(file));
}

const ORDERABLE = new Set([
  'modifiedTime',
  'createdTime',
  'name',
  'folder',
  'starred',
  'viewedByMeTime',
  'quotaBytesUsed',
]);

/** `orderBy=modifiedTime desc,name`; ties broken by id so pages never overlap. */
export function compileOrder(orderBy: string | undefined): (a: DriveFile, b: DriveFile) => number {
  const keys = (orderBy ?? 'folder,modifiedTime desc,name')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const [field, direction] = s.split(/\s+/);
      if (!field || !ORDERABLE.has(field) || (direction && direction !== 'desc' && direction !== 'asc')) {
        throw new QueryError(`Invalid Value: orderBy ${s}`);
      }
      return { field, sign: direction === 'desc' ? -1 : 1 };
    });
  return (a, b) => {
    for (const { field, sign } of keys) {
      const va = field === 'folder' ? Number(a.mimeType !== 'application/vnd.google-apps.folder') : a[field];
      const vb = field === 'folder' ? Number(b.mimeType !== 'application/vnd.google-apps.folder') : b[field];
      const cmp = String(va ?? '').localeCompare(String(vb ?? ''));
      if (cmp !== 0) return cmp * sign;
    }
    return a.id.localeCompare(b.id);
  };
}

type Selection = Map<string, Selection | null>;

function parseList(text: string, at: { i: number }): Selection {
  const selection: Selection = new Map();
  while (at.i < text.length && text[at.i] !== ')') {
    let name = '';
    while (at.i < text.length && !',()'.includes(text[at.i]!)) name += text[at.i++];
    name = name.trim();
    let sub: Selection | null = null;
    if (text[at.i] === '(') {
      at.i++;
      sub = parseList(text, at);
      if (text[at.i] !== ')') throw new QueryError('Invalid field selection: missing )');
      at.i++;
    }
    if (name === '') throw new QueryError('Invalid field selection');
    const path = name.split('/');
    let target = selection;
    for (const [index, segment] of path.entries()) {
      if (index === path.length - 1) target.set(segment, sub);
      else {
        const next = target.get(segment) ?? new Map<string, Selection | null>();
        target.set(segment, next);
        target = next;
      }
    }
    if (text[at.i] === ',') at.i++;
  }
  return selection;
}

export function parseFields(fields: string): Selection {
  const at = { i: 0 };
  const selection = parseList(fields.replace(/\s+/g, ''), at);
  if (at.i !== fields.replace(/\s+/g, '').length) throw new QueryError('Invalid field selection: unbalanced )');
  return selection;
}

/** Keeps only the selected fields; `*` selects everything at its level. */
export function applySelection(value: unknown, selection: Selection | null): unknown {
  if (selection === null || selection.has('*')) return value;
  if (Array.isArray(value)) return value.map((v) => applySelection(v, selection));
  if (typeof value !== 'object' || value === null) return value;
  const out: DriveRecord = {} as DriveRecord;
  for (const [key, sub] of selection) {
    if (key in (value as Record<string, unknown>))
      out[key] = applySelection((value as Record<string, unknown>)[key], sub);
  }
  return out;
}
