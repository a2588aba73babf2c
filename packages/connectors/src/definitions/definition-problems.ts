import { z } from 'zod';
import { didYouMean } from '../core/did-you-mean.ts';
import { type FieldProblem, toPointer } from '../core/errors.ts';
import { zodProblems } from '../core/validate.ts';
import {
  type ConnectorDefinitionDocument,
  connectorDefinitionSchema,
  type DefinedEntity,
  type DefinedField,
  type DefinedParam,
} from './definition-format.ts';

/** The format's limits (docs/definitions.md): what one organization's document may hold. */
export const DEFINITION_LIMITS = {
  bytes: 256 * 1024,
  entities: 50,
  fieldsPerEntity: 500,
  searchablePerEntity: 200,
} as const;

export type DefinitionCheck =
  | { readonly ok: true; readonly definition: ConnectorDefinitionDocument }
  | { readonly ok: false; readonly problems: readonly FieldProblem[] };

/**
 * Every problem of a definition at once, each with its JSON pointer: the shape (zod), then what spans several places
 * (a key that is a declared field, a `{param}` a path names, a cursor field of a type that orders). `reserved` are
 * kind names that cannot be taken (the built-in kinds).
 */
export function checkDefinition(input: unknown, reserved: readonly string[] = []): DefinitionCheck {
  const parsed = connectorDefinitionSchema.safeParse(input);
  if (!parsed.success) {
    return { ok: false, problems: shapeProblems(parsed.error, input) };
  }
  const problems = crossProblems(parsed.data, reserved);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, definition: parsed.data };
}

function shapeProblems(error: z.ZodError, input: unknown): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const issue of error.issues) {
    // A discriminated union with an unknown `type` (paging, auth): name the allowed ones, with a "did you mean".
    if (issue.code === 'invalid_union' && 'note' in issue && issue.note === 'No matching discriminator') {
      // zod's path already ends at the discriminator (`/entities/x/list/paging/type`).
      const given = valueAt(input, issue.path);
      const owner = issue.path.findLast((p) => typeof p === 'string' && Object.hasOwn(TYPES_AT, p));
      const allowed = TYPES_AT[owner as string] ?? [];
      problems.push({
        path: toPointer('', issue.path),
        message: `must be one of ${allowed.join(', ')}.${typeof given === 'string' ? didYouMean(given, allowed) : ''}`,
      });
      continue;
    }
    problems.push(...zodProblems(new z.ZodError([issue]), '', (path) => knownKeysAt(path), input));
  }
  return problems;
}

const TYPES_AT: Readonly<Record<string, readonly string[]>> = {
  paging: [
    'none',
    'cursor',
    'page_token',
    'page_number',
    'offset',
    'link_header',
    'next_url',
    'last_record',
    'body_link',
  ],
  auth: ['api_key', 'bearer', 'basic', 'oauth2'],
};

const ENTITY_KEYS = [
  'key',
  'fields',
  'aliases',
  'searchable',
  'embed',
  'list',
  'get',
  'create',
  'update',
  'delete',
  'replication',
];
const TOP_KEYS = [
  'name',
  'description',
  'base_url',
  'config',
  'auth',
  'headers',
  'rate_limit',
  'errors',
  'entities',
  'webhooks',
];
const PARAM_KEYS = [
  'type',
  'required',
  'enum',
  'minimum',
  'maximum',
  'pattern',
  'max_length',
  'items',
  'in',
  'upstream_name',
];
const LIST_KEYS = ['path', 'records', 'params', 'paging', 'meta', 'constant_query'];
const REPLICATION_KEYS = [
  'mode',
  'cursor_field',
  'since',
  'sees_edits',
  'sees_deletions',
  'lookback_s',
  'page_params',
  'parent',
];

/** The keys allowed where an unknown one was found, for "did you mean" (by the path's shape). */
function knownKeysAt(path: readonly PropertyKey[]): string[] {
  const p = path.map(String);
  if (p.length === 0) return TOP_KEYS;
  if (p[0] === 'entities' && p.length === 2) return ENTITY_KEYS;
  if (p[0] === 'entities' && p.length === 3) {
    if (p[2] === 'list') return LIST_KEYS;
    if (p[2] === 'replication') return REPLICATION_KEYS;
    if (p[2] === 'get') return ['path', 'record', 'params'];
    return ['method', 'path', 'params', 'record'];
  }
  if (p.at(-2) === 'params') return PARAM_KEYS;
  if (p.at(-1) === 'paging') return ['type', 'param', 'next_at', 'has_more_at', 'stop_on_empty', 'meta', 'limit_param'];
  return [];
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let at = input;
  for (const key of path) {
    if (typeof at !== 'object' || at === null || typeof key === 'symbol' || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string | number, unknown>)[key];
  }
  return at;
}

/** `{name}` placeholders of a path or URL template. */
export function placeholders(template: string): string[] {
  return [...template.matchAll(/\{([^}]*)\}/g)].map((m) => m[1] ?? '');
}

/** The type name of a field, whichever way it is written. */
export function fieldType(field: DefinedField): string {
  return typeof field === 'string' ? field.replace('!', '') : field.type;
}

function crossProblems(definition: ConnectorDefinitionDocument, reserved: readonly string[]): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const add = (path: string, message: string) => problems.push({ path, message });

  if (reserved.some((kind) => kind.toLowerCase() === definition.name.toLowerCase())) {
    add('/name', `'${definition.name}' is a built-in kind: choose another name`);
  }
  const variables = Object.keys(definition.config ?? {});
  for (const [name, variable] of Object.entries(definition.config ?? {})) {
    try {
      new RegExp(variable.pattern);
    } catch {
      add(`/config/${name}/pattern`, 'is not a valid regular expression');
    }
  }
  const checkUrl = (template: string, at: string) => {
    for (const variable of placeholders(template)) {
      if (!variables.includes(variable)) {
        add(at, `{${variable}} is not declared in config.${didYouMean(variable, variables)}`);
      }
    }
    const filled = template.replaceAll(/\{[^}]*\}/g, 'x');
    let url: URL | undefined;
    try {
      url = new URL(filled);
    } catch {
      add(at, 'is not a URL');
    }
    if (url && url.protocol !== 'https:' && url.protocol !== 'http:') add(at, 'must be an https URL');
    if (url && (url.username || url.password || url.search || url.hash)) {
      add(at, 'must not hold credentials, a query or a fragment');
    }
  };
  checkUrl(definition.base_url, '/base_url');
  const auths = Array.isArray(definition.auth) ? definition.auth : [definition.auth];
  const seen = new Set<string>();
  auths.forEach((auth, index) => {
    const at = Array.isArray(definition.auth) ? `/auth/${index}` : '/auth';
    if (seen.has(auth.type)) add(`${at}/type`, `'${auth.type}' is listed twice`);
    seen.add(auth.type);
    if (auth.type === 'oauth2') {
      checkUrl(auth.token_url, `${at}/token_url`);
      if (auth.consent) checkUrl(auth.consent.authorize_url, `${at}/consent/authorize_url`);
    }
  });

  const entityNames = Object.keys(definition.entities);
  if (entityNames.length === 0) add('/entities', 'declares no entity');
  if (entityNames.length > DEFINITION_LIMITS.entities) {
    add('/entities', `at most ${DEFINITION_LIMITS.entities} entities`);
  }
  for (const [name, entity] of Object.entries(definition.entities)) {
    problems.push(...entityProblems(`/entities/${name}`, entity, definition));
  }
  for (const [name, source] of Object.entries(definition.webhooks?.events.params ?? {})) {
    if (typeof source === 'string') continue;
    try {
      new RegExp(source.match);
    } catch {
      add(`/webhooks/events/params/${name}/match`, 'is not a valid regular expression');
    }
  }
  if (definition.webhooks?.events.entities) {
    for (const [event, target] of Object.entries(definition.webhooks.events.entities)) {
      if (!entityNames.includes(target)) {
        add(`/webhooks/events/entities/${event}`, `'${target}' is not an entity.${didYouMean(target, entityNames)}`);
      }
    }
  }
  return problems;
}

function entityProblems(at: string, entity: DefinedEntity, definition: ConnectorDefinitionDocument): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const add = (path: string, message: string) => problems.push({ path: `${at}${path}`, message });
  const fieldNames = Object.keys(entity.fields);
  const fieldAt = (dotted: string): DefinedField | undefined => lookupField(entity.fields, dotted);
  const requireField = (dotted: string, path: string) => {
    if (!fieldAt(dotted)) add(path, `'${dotted}' is not a declared field.${didYouMean(dotted, fieldNames)}`);
  };

  if (fieldNames.length > DEFINITION_LIMITS.fieldsPerEntity) {
    add('/fields', `at most ${DEFINITION_LIMITS.fieldsPerEntity} fields`);
  }
  requireField(entity.key, '/key');
  const key = fieldAt(entity.key);
  if (key && !['string', 'integer'].includes(fieldType(key))) add('/key', 'must be a string or integer field');
  if (Array.isArray(entity.searchable)) {
    if (entity.searchable.length > DEFINITION_LIMITS.searchablePerEntity) {
      add('/searchable', `at most ${DEFINITION_LIMITS.searchablePerEntity} searchable fields`);
    }
    for (const [i, name] of entity.searchable.entries()) requireField(name, `/searchable/${i}`);
  } else if (entity.searchable === 'all' && fieldNames.length > DEFINITION_LIMITS.searchablePerEntity) {
    add('/searchable', `at most ${DEFINITION_LIMITS.searchablePerEntity} searchable fields: list them`);
  }
  for (const name of Object.keys(entity.aliases ?? {})) requireField(name, `/aliases/${name}`);
  for (const [i, name] of (entity.embed ?? []).entries()) {
    const field = fieldAt(name);
    if (!field) requireField(name, `/embed/${i}`);
    else if (fieldType(field) !== 'string') add(`/embed/${i}`, 'must be a string field');
  }

  const operations = {
    list: entity.list,
    get: entity.get,
    create: entity.create,
    update: entity.update,
    delete: entity.delete,
  };
  for (const [action, operation] of Object.entries(operations)) {
    if (!operation) continue;
    const declared = operation.params ?? {};
    for (const name of placeholders(operation.path)) {
      // A path placeholder is a required param, declared or implied (`{id}` → a required string).
      if (!/^[a-z][a-z0-9_]{0,63}$/.test(name)) add(`/${action}/path`, `{${name}} is not a valid param name`);
      else if (declared[name] && declared[name].required === false) {
        add(`/${action}/params/${name}`, 'is in the path, so it must be required');
      }
    }
    for (const [name, param] of Object.entries(declared))
      problems.push(...paramProblems(`${at}/${action}/params/${name}`, param));
  }

  const { list, replication } = entity;
  if (list?.paging && list.paging.type === 'last_record') requireField(list.paging.field, '/list/paging/field');
  if (replication) {
    if (!list) add('/replication', 'needs a list to read from');
    if (entity.searchable === undefined) add('/searchable', 'is required for a replicated entity ("all" or a list)');
    if (replication.mode === 'incremental') {
      if (!replication.cursor_field) add('/replication/cursor_field', 'is required for an incremental entity');
      else {
        requireField(replication.cursor_field, '/replication/cursor_field');
        const cursor = fieldAt(replication.cursor_field);
        if (cursor && !['datetime', 'integer', 'number'].includes(fieldType(cursor))) {
          add('/replication/cursor_field', 'must be a datetime, integer or number field');
        }
      }
    }
    const listParams = Object.keys(list?.params ?? {});
    if (replication.parent) {
      const parent = definition.entities[replication.parent.entity];
      const names = Object.keys(definition.entities);
      if (!parent)
        add(
          '/replication/parent/entity',
          `'${replication.parent.entity}' is not an entity.${didYouMean(replication.parent.entity, names)}`,
        );
      else if (!parent.replication) add('/replication/parent/entity', 'must be a replicated entity');
      if (
        list &&
        !placeholders(list.path).includes(replication.parent.param) &&
        !listParams.includes(replication.parent.param)
      ) {
        add('/replication/parent/param', 'must be a list param or a {placeholder} of the list path');
      }
    }
  } else if (entity.searchable !== undefined) {
    add('/searchable', 'only a replicated entity is searchable: add replication');
  }
  if (entity.embed && !replication) add('/embed', 'only a replicated entity is embedded: add replication');
  return problems;
}

function paramProblems(at: string, param: DefinedParam): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (param.pattern !== undefined) {
    try {
      new RegExp(param.pattern);
    } catch {
      problems.push({ path: `${at}/pattern`, message: 'is not a valid regular expression' });
    }
  }
  if (param.items && param.type !== 'array')
    problems.push({ path: `${at}/items`, message: 'only an array param has items' });
  if ((param.minimum !== undefined || param.maximum !== undefined) && !['integer', 'number'].includes(param.type)) {
    problems.push({ path: `${at}/minimum`, message: 'only a numeric param has a minimum or maximum' });
  }
  return problems;
}

/** The field at a dotted path: a top-level name (which may itself hold dots) or a path into object fields. */
export function lookupField(fields: Readonly<Record<string, DefinedField>>, dotted: string): DefinedField | undefined {
  if (Object.hasOwn(fields, dotted)) return fields[dotted];
  const [head, ...rest] = dotted.split('.');
  if (!head || rest.length === 0 || !Object.hasOwn(fields, head)) return undefined;
  const parent = fields[head];
  if (typeof parent !== 'object' || parent === undefined || !parent.fields) return undefined;
  return lookupField(parent.fields, rest.join('.'));
}
