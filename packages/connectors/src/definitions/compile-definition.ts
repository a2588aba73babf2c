import { z } from 'zod';
import { apiKeyAuth, basicAuth, bearerAuth, clientCredentialsAuth, credentialsOAuth } from '../core/auth.ts';
import type {
  AuthSpec,
  ChangeCapture,
  EntityCatalog,
  KindCatalog,
  LiveActionName,
  ParamsSchema,
  UpstreamSpec,
} from '../core/catalog.ts';
import type { Classify } from '../core/classify.ts';
import { defaultClassify } from '../core/classify.ts';
import { isoDateTime } from '../core/common-schemas.ts';
import type { ConnectorContext, ConnectorDefinition, EntityOperations, Params } from '../core/define-connector.ts';
import { UpstreamError } from '../core/errors.ts';
import type { FieldMap, FieldSpec, ScalarType } from '../core/field-spec.ts';
import type { AuthStrategy, QueryValue } from '../core/http-client.ts';
import { fillPath } from '../core/listing.ts';
import { at } from '../core/paging.ts';
import { declaredWebhookScheme } from './declared-webhooks.ts';
import type {
  ConnectorDefinitionDocument,
  DefinedAuth,
  DefinedEntity,
  DefinedField,
  DefinedPaging,
  DefinedParam,
} from './definition-format.ts';
import { placeholders } from './definition-problems.ts';
import { corePaging } from './paging-names.ts';

/**
 * A checked definition (checkDefinition) as the structure the platform runs: the same KindCatalog and
 * ConnectorDefinition the built-in kinds declare in TypeScript, so listing, paging, replication, search mappings and
 * validation are the core's, not a second implementation. A definition has no code: every entity's operations come
 * from its declaration.
 */
export function compileDefinition(document: ConnectorDefinitionDocument): ConnectorDefinition {
  const auths = Array.isArray(document.auth) ? document.auth : [document.auth];
  const catalog: KindCatalog = {
    connectorType: document.name,
    purpose: document.description ?? document.name,
    credentials: credentialsSchema(auths),
    replicationConfig: z.strictObject({ start_date: isoDateTime }),
    config: configSchema(document.config ?? {}),
    ...authSpec(auths),
    ...(document.webhooks ? { webhooks: declaredWebhookScheme(document.webhooks, document.entities) } : {}),
    copyVersion: {
      by: 'read_instant',
      why: 'a defined kind declares no record version of its own: writes are ordered by when their read began',
      source: 'docs/definitions.md',
    },
    rateLimit: {
      perSecond: document.rate_limit?.per_second ?? null,
      scope: document.rate_limit?.scope ?? 'not declared: learnt from 429 and Retry-After',
      source: 'the connector definition',
    },
    entities: Object.fromEntries(Object.entries(document.entities).map(([name, e]) => [name, entityCatalog(name, e)])),
  };
  return {
    catalog,
    defaultBaseUrl: document.base_url,
    ...(document.headers ? { defaultHeaders: () => ({ ...document.headers }) } : {}),
    auth: ({ credentials, config, settings, tokenCache }) =>
      authStrategy(auths, credentials as Record<string, string | undefined>, config, settings, tokenCache),
    classify: classifyOf(document.errors),
    entities: Object.fromEntries(
      Object.entries(document.entities).map(([name, entity]) => [name, writeOperations(entity)]),
    ),
  };
}

/** A field as the catalog's FieldSpec: `"integer!"` → `{type: 'integer', nullable: false}`. */
export function fieldSpecOf(field: DefinedField): FieldSpec {
  if (typeof field === 'string') {
    const type = field.replace('!', '') as FieldSpec['type'];
    return { type, nullable: !field.endsWith('!') } as FieldSpec;
  }
  const nullable = field.nullable ?? true;
  if (field.type === 'object') {
    return field.fields ? { type: 'object', nullable, fields: fieldMapOf(field.fields) } : { type: 'object', nullable };
  }
  if (field.type === 'array') {
    return field.items ? { type: 'array', nullable, items: fieldSpecOf(field.items) } : { type: 'array', nullable };
  }
  return field.enum
    ? { type: field.type as ScalarType, nullable, enum: field.enum }
    : { type: field.type as ScalarType, nullable };
}

function fieldMapOf(fields: Readonly<Record<string, DefinedField>>): FieldMap {
  return Object.fromEntries(Object.entries(fields).map(([name, field]) => [name, fieldSpecOf(field)]));
}

function entityCatalog(name: string, entity: DefinedEntity): EntityCatalog {
  const record = fieldMapOf(entity.fields);
  const actions: { [A in LiveActionName]?: ParamsSchema } = {};
  if (entity.list) actions.list = paramsSchema(entity.list.params, entity.list.path, pagingParam(entity.list.paging));
  if (entity.get) actions.get = paramsSchema(entity.get.params, entity.get.path);
  for (const action of ['create', 'update', 'delete'] as const) {
    const write = entity[action];
    if (write) actions[action] = paramsSchema(write.params, write.path);
  }
  const replication = entity.replication;
  const searchable =
    replication && entity.searchable
      ? entity.searchable === 'all'
        ? record
        : Object.fromEntries(entity.searchable.map((field) => [field, searchableSpec(record, field)]))
      : undefined;
  return {
    name,
    recordKey: entity.key,
    record,
    ...(entity.list ? { upstream: upstreamSpec(entity) } : {}),
    ...(searchable ? { searchable } : {}),
    // Meaning-bearing fields (search by meaning, docs/search.md); checkDefinition allows them on replicated entities.
    ...(searchable && entity.embed?.length ? { embed: entity.embed } : {}),
    actions,
    ...(replication
      ? {
          sync: {
            mode: replication.mode,
            ...(replication.cursor_field ? { cursorField: replication.cursor_field } : {}),
            ...(replication.parent
              ? {
                  parent: {
                    entity: replication.parent.entity,
                    param: replication.parent.param,
                    from: replication.parent.from,
                  },
                }
              : {}),
          },
          changeCapture: changeCapture(replication),
        }
      : {}),
  };
}

function searchableSpec(record: FieldMap, dotted: string): FieldSpec {
  if (Object.hasOwn(record, dotted)) return record[dotted]!;
  let spec: FieldSpec | undefined;
  let fields: FieldMap | undefined = record;
  for (const part of dotted.split('.')) {
    spec = fields?.[part];
    fields = spec?.type === 'object' ? spec.fields : undefined;
  }
  if (!spec) throw new Error(`searchable field ${dotted} is not declared (checkDefinition lets none through)`);
  return spec;
}

function changeCapture(replication: NonNullable<DefinedEntity['replication']>): ChangeCapture {
  const full = replication.mode === 'full_refresh';
  return {
    seesEdits: full || (replication.sees_edits ?? false),
    seesDeletions: full || (replication.sees_deletions ?? false),
    lookbackMs: (replication.lookback_s ?? 0) * 1000,
    cursor: 'field',
    source: 'the connector definition',
  };
}

function upstreamSpec(entity: DefinedEntity): UpstreamSpec {
  const list = entity.list!;
  const rename = Object.fromEntries(
    Object.entries(list.params ?? {}).flatMap(([name, p]) => (p.upstream_name ? [[name, p.upstream_name]] : [])),
  );
  const getRename = Object.fromEntries(
    Object.entries(entity.get?.params ?? {}).flatMap(([name, p]) => (p.upstream_name ? [[name, p.upstream_name]] : [])),
  );
  const replication = entity.replication;
  const since = replication?.since;
  if (since?.upstream_name) rename[since.param] = since.upstream_name;
  return {
    path: list.path,
    records: list.records,
    paging: corePaging(list.paging),
    ...(entity.aliases ? { aliases: entity.aliases } : {}),
    ...(list.meta ? { meta: list.meta } : {}),
    ...(Object.keys(rename).length > 0 || Object.keys(getRename).length > 0
      ? { query: { ...getRename, ...rename } }
      : {}),
    ...(list.constant_query ? { constantQuery: list.constant_query } : {}),
    ...(entity.get
      ? {
          get: {
            path: entity.get.path,
            ...(entity.get.record ? { record: entity.get.record } : {}),
            ...(entity.get.constant_query ? { defaults: entity.get.constant_query } : {}),
          },
        }
      : {}),
    ...(replication
      ? {
          read: {
            ...(replication.page_params ? { params: replication.page_params } : {}),
            ...(since ? { since: { param: since.param, format: since.format } } : {}),
          },
        }
      : {}),
  };
}

/** The param a caller passes to ask for the next page (it must be accepted by the list's params). */
function pagingParam(paging: DefinedPaging): Record<string, DefinedParam> {
  if (paging.type === 'none') return {};
  const extra: Record<string, DefinedParam> = {
    [paging.param]:
      paging.type === 'page_number' || paging.type === 'offset'
        ? { type: 'integer', minimum: paging.type === 'offset' ? 0 : 1 }
        : { type: 'string' },
  };
  if (paging.type === 'offset') extra[paging.limit_param] = { type: 'integer', minimum: 1, maximum: paging.limit };
  return extra;
}

/**
 * The strict zod object of an action's params: declared params, `{placeholders}` of the path (required strings
 * unless declared), and the paging param. Unknown params are refused, as for built-in kinds.
 */
function paramsSchema(
  declared: Readonly<Record<string, DefinedParam>> | undefined,
  path: string,
  implied: Readonly<Record<string, DefinedParam>> = {},
): ParamsSchema {
  const shape: Record<string, z.ZodType> = {};
  for (const name of placeholders(path)) shape[name] = z.union([z.string().min(1).max(512), z.int()]);
  for (const [name, param] of Object.entries({ ...implied, ...declared })) {
    const schema = paramZod(param);
    shape[name] = param.required || placeholders(path).includes(name) ? schema : schema.optional();
  }
  return z.strictObject(shape);
}

function paramZod(param: DefinedParam): z.ZodType {
  if (param.enum) {
    const values = param.enum.map((v) => z.literal(v));
    return values.length === 1 ? values[0]! : z.union(values as unknown as [z.ZodLiteral, z.ZodLiteral]);
  }
  switch (param.type) {
    case 'string': {
      let s = z.string().max(param.max_length ?? 4096);
      if (param.pattern) s = s.regex(new RegExp(param.pattern));
      return s;
    }
    case 'datetime':
      return isoDateTime;
    case 'integer':
    case 'number': {
      let n = param.type === 'integer' ? z.int() : z.number();
      if (param.minimum !== undefined) n = n.min(param.minimum);
      if (param.maximum !== undefined) n = n.max(param.maximum);
      return n;
    }
    case 'boolean':
      return z.boolean();
    case 'array': {
      const item =
        param.items?.type === 'integer' ? z.int() : param.items?.type === 'number' ? z.number() : z.string().max(4096);
      return z.array(item).max(1024);
    }
  }
}

/** Create / update / delete from the declaration: path params into the path, the rest into the JSON body or query. */
function writeOperations(entity: DefinedEntity): EntityOperations {
  const operations: EntityOperations = {};
  for (const action of ['create', 'update', 'delete'] as const) {
    const write = entity[action];
    if (!write) continue;
    operations[action] = async (ctx: ConnectorContext, params: Params) => {
      const { path, used } = fillPath(write.path, params);
      const query: Record<string, QueryValue> = {};
      const body: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(params)) {
        if (used.includes(name) || value === undefined) continue;
        const declared = write.params?.[name];
        const target =
          declared?.in === 'query' || (write.method === 'DELETE' && declared?.in !== 'body') ? query : body;
        target[declared?.upstream_name ?? name] = value as QueryValue;
      }
      const hasBody = Object.keys(body).length > 0 || write.method === 'POST';
      const answer = await ctx.http.json<unknown>({
        method: write.method,
        path,
        query,
        ...(hasBody ? { json: body } : {}),
        signal: ctx.signal,
        idempotent: write.method === 'PUT' || write.method === 'DELETE',
      });
      if (answer === undefined) return { [entity.key]: params[entity.key] ?? null, [`${action}d`]: true };
      return write.record ? at(answer, write.record) : answer;
    };
  }
  return operations;
}

const CREDENTIALS_OF: Readonly<Record<DefinedAuth['type'], z.ZodObject>> = {
  api_key: z.strictObject({ api_key: z.string().min(1).max(4096) }),
  bearer: z.strictObject({ access_token: z.string().min(1).max(8192) }),
  basic: z.strictObject({ username: z.string().min(1).max(512), password: z.string().max(4096) }),
  oauth2: z.strictObject({
    client_id: z.string().min(1).max(1024),
    client_secret: z.string().min(1).max(4096),
    access_token: z.string().min(1).max(8192).optional(),
    refresh_token: z.string().min(1).max(8192).optional(),
  }),
};

/** The credentials a connector of the kind stores: what its auth method names (a union when it lists several). */
function credentialsSchema(auths: readonly DefinedAuth[]): z.ZodType {
  const schemas = auths.map((auth) => {
    if (auth.type === 'oauth2' && auth.grant === 'refresh_token') {
      return CREDENTIALS_OF.oauth2.extend({ refresh_token: z.string().min(1).max(8192) });
    }
    return CREDENTIALS_OF[auth.type];
  });
  return schemas.length === 1 ? schemas[0]! : z.union(schemas as unknown as [z.ZodObject, z.ZodObject]);
}

function configSchema(config: NonNullable<ConnectorDefinitionDocument['config']>): z.ZodType {
  return z.strictObject(
    Object.fromEntries(
      Object.entries(config).map(([name, variable]) => [name, z.string().regex(new RegExp(variable.pattern))]),
    ),
  );
}

function authSpec(auths: readonly DefinedAuth[]): { auth?: AuthSpec } {
  const oauth = auths.find((a) => a.type === 'oauth2');
  if (!oauth) return {};
  return {
    auth: {
      tokenUrl: oauth.token_url,
      clientAuth: oauth.client_auth ?? 'form',
      ...(oauth.consent
        ? {
            consent: {
              authorizeUrl: oauth.consent.authorize_url,
              scopes: oauth.scopes ?? [],
              pkce: oauth.consent.pkce,
              authorizeParams: {},
              credentials: {
                access_token: { from: 'token', field: 'access_token' },
                refresh_token: { from: 'token', field: 'refresh_token' },
                client_id: { from: 'client', field: 'client_id' },
                client_secret: { from: 'client', field: 'client_secret' },
              },
            },
          }
        : {}),
    },
  };
}

/** The auth method whose credentials the connector holds (the first that matches, in the definition's order). */
function authStrategy(
  auths: readonly DefinedAuth[],
  credentials: Record<string, string | undefined>,
  config: unknown,
  settings: Parameters<ConnectorDefinition['auth']>[0]['settings'],
  tokenCache: Parameters<ConnectorDefinition['auth']>[0]['tokenCache'],
): AuthStrategy {
  const auth = auths.find((a) => CREDENTIALS_OF[a.type].safeParse(credentials).success) ?? auths[0]!;
  switch (auth.type) {
    case 'api_key':
      return apiKeyAuth(auth.in, auth.name, `${auth.prefix ?? ''}${credentials.api_key ?? ''}`);
    case 'bearer':
      return bearerAuth(credentials.access_token ?? '');
    case 'basic':
      return basicAuth(credentials.username ?? '', credentials.password ?? '');
    case 'oauth2': {
      const spec = authSpec([auth]).auth!;
      if (auth.grant === 'client_credentials') {
        return clientCredentialsAuth({
          tokenUrl: settings.tokenUrl ?? auth.token_url,
          clientId: credentials.client_id ?? '',
          clientSecret: credentials.client_secret ?? '',
          clientAuth: spec.clientAuth,
          accessToken: credentials.access_token,
          cache: tokenCache,
          ...(settings.fetch ? { fetch: settings.fetch } : {}),
        });
      }
      return credentialsOAuth(credentials, settings, spec, config);
    }
  }
}

const CLASS_OF = {
  rate_limited: { type: 'rate_limited' },
  auth_failed: { type: 'auth' },
  transient: { type: 'retryable' },
} as const;

/** The definition's error rules over the default reading; `message_at` names the upstream's own message. */
function classifyOf(errors: ConnectorDefinitionDocument['errors']): Classify {
  const rules = errors?.rules ?? [];
  return (response, excerpt) => {
    const rule = rules.find(
      (r) => r.status === response.status && (!r.body_contains || excerpt.includes(r.body_contains)),
    );
    if (rule && rule.as in CLASS_OF) return CLASS_OF[rule.as as keyof typeof CLASS_OF];
    const verdict = rule ? { type: 'permanent' as const } : defaultClassify(response);
    if (verdict.type !== 'permanent') return verdict;
    const message = errors?.message_at ? messageAt(excerpt, errors.message_at) : undefined;
    const status = rule?.as === 'not_found' ? 404 : rule?.as === 'rejected' ? 400 : response.status;
    const code = status === 404 ? 'upstream_not_found' : 'upstream_error';
    const error = new UpstreamError(code, message ?? `the upstream answered ${response.status}`, status, excerpt, {
      retryable: false,
    });
    return message || rule ? { type: 'permanent', error } : verdict;
  };
}

function messageAt(excerpt: string, path: string): string | undefined {
  try {
    const value = at(JSON.parse(excerpt), path);
    return typeof value === 'string' ? value.slice(0, 500) : undefined;
  } catch {
    return undefined;
  }
}
