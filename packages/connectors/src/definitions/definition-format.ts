import { z } from 'zod';

/**
 * The connector definition format (docs/definitions.md): a connector kind as one JSON document, no code. This zod
 * schema is the single source of the format: validation, the published JSON Schema and the TypeScript types all
 * derive from it. Only the shape is checked here; what spans several places of a document (a cursor field that is a
 * declared field, a `{param}` that is a declared param) is checked by definition-problems.ts.
 */

export const NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
/** A record field as the vendor names it (`dateCreated`, `event.type`): letters, digits and `_`, joined by dots. */
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}(\.[A-Za-z_][A-Za-z0-9_]{0,63})*$/;
/** A path into an upstream JSON answer: dot-separated keys as the vendor names them (camelCase allowed). */
const ANSWER_PATH = /^[A-Za-z0-9_$@-]+(\.[A-Za-z0-9_$@-]+)*$/;
/** Capitalised words joined by hyphens, as the built-in kinds are named (`Acme-Helpdesk`). */
export const KIND_NAME_PATTERN = /^[A-Z][A-Za-z0-9]*(-[A-Z0-9][A-Za-z0-9]*)*$/;

const name = z.string().regex(NAME_PATTERN, 'must match ^[a-z][a-z0-9_]{0,63}$');
const dottedName = z.string().regex(FIELD_NAME, 'must be field names (letters, digits, _) joined by dots');
const answerPath = z.string().max(256).regex(ANSWER_PATH, 'must be keys joined by dots (e.g. meta.next_cursor)');
const path = z
  .string()
  .max(1024)
  .regex(/^\/[^?#\s]*$/, 'must start with / and hold no query or fragment');

export const SCALAR_TYPES = ['string', 'integer', 'number', 'decimal', 'boolean', 'datetime'] as const;
export const FIELD_TYPES = [...SCALAR_TYPES, 'object', 'array'] as const;
const FIELD_TYPE_TEXT = new RegExp(`^(${FIELD_TYPES.join('|')})!?$`);

/** A record field: a type name (`"integer!"`: never null) or an object form with enum, fields or items. */
export interface DefinedFieldObject {
  readonly type: (typeof FIELD_TYPES)[number];
  readonly nullable?: boolean | undefined;
  readonly enum?: readonly string[] | undefined;
  readonly fields?: Readonly<Record<string, DefinedField>> | undefined;
  readonly items?: DefinedField | undefined;
}
export type DefinedField = string | DefinedFieldObject;

const field: z.ZodType<DefinedField> = z.lazy(() =>
  z.union([
    z.string().regex(FIELD_TYPE_TEXT, `must be one of ${FIELD_TYPES.join(', ')} (with ! for never null)`),
    z.strictObject({
      type: z.enum(FIELD_TYPES),
      nullable: z.boolean().optional(),
      enum: z.array(z.string().max(256)).min(1).max(500).optional(),
      fields: z.record(dottedName, field).optional(),
      items: field.optional(),
    }),
  ]),
);

export const PARAM_TYPES = ['string', 'integer', 'number', 'boolean', 'datetime', 'array'] as const;

/** A parameter of a live action; unknown params are refused, as for built-in kinds. */
export const paramSchema = z.strictObject({
  type: z.enum(PARAM_TYPES),
  required: z.boolean().optional(),
  enum: z
    .array(z.union([z.string(), z.number()]))
    .min(1)
    .max(500)
    .optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  pattern: z.string().max(512).optional(),
  max_length: z.int().min(1).max(65_536).optional(),
  items: z.strictObject({ type: z.enum(['string', 'integer', 'number']) }).optional(),
  /** Where the param goes upstream (default: the path if the path names it, else the query; body for writes). */
  in: z.enum(['query', 'body']).optional(),
  /** Its name upstream, when it differs (`created_at_gte` → `created_at[gte]`). */
  upstream_name: z.string().min(1).max(128).optional(),
});
export type DefinedParam = z.infer<typeof paramSchema>;
const params = z.record(name, paramSchema);

/** How the next page of a list is asked for: the built-in catalogs' paging styles, keyed on `type`. */
export const pagingSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('none') }),
  z.strictObject({
    type: z.literal('cursor'),
    param: name,
    next_at: answerPath,
    has_more_at: answerPath.optional(),
    stop_on_empty: z.boolean().optional(),
    meta: name.optional(),
  }),
  z.strictObject({ type: z.literal('page_token'), param: name, next_at: answerPath, meta: name.optional() }),
  z.strictObject({
    type: z.literal('page_number'),
    param: name,
    total_pages_at: answerPath,
    stop_on_empty: z.boolean().optional(),
  }),
  z.strictObject({
    type: z.literal('offset'),
    param: name,
    limit_param: name,
    /** The page size asked for when the caller gives none. */
    limit: z.int().min(1).max(10_000),
  }),
  z.strictObject({ type: z.literal('link_header'), param: name, meta: name.optional() }),
  z.strictObject({
    type: z.literal('next_url'),
    param: name,
    next_at: answerPath,
    meta: name.optional(),
    full_page: z.strictObject({ count_at: answerPath, size: z.int().min(1) }).optional(),
  }),
  z.strictObject({ type: z.literal('last_record'), param: name, field: dottedName, pages_at: answerPath.optional() }),
  z.strictObject({ type: z.literal('body_link'), param: name, links_at: answerPath, meta: name.optional() }),
]);
export type DefinedPaging = z.infer<typeof pagingSchema>;

const listSchema = z.strictObject({
  path,
  /**
   * Where the records sit in the answer: a dotted path, or null for a bare array; `{"object": path}` when the answer
   * is one record (at that path, or the whole answer for null).
   */
  records: z.union([answerPath.nullable(), z.strictObject({ object: answerPath.nullable() })]),
  params: params.optional(),
  paging: pagingSchema,
  /** Meta values a list answers besides the next-page value: name → dotted path in the answer. */
  meta: z.record(name, answerPath).optional(),
  /** Query values every list call sends. */
  constant_query: z.record(z.string().min(1).max(128), z.string().max(1024)).optional(),
});

const getSchema = z.strictObject({
  path,
  /** Where the record sits in the answer (absent: the answer is the record). */
  record: answerPath.optional(),
  params: params.optional(),
  /** Query values sent unless the caller gives its own (`fields=*`). */
  constant_query: z.record(z.string().min(1).max(128), z.string().max(1024)).optional(),
});

const writeSchema = z.strictObject({
  method: z.enum(['POST', 'PUT', 'PATCH', 'DELETE']),
  path,
  params: params.optional(),
  /** Where the written record sits in the answer (absent: the whole answer). */
  record: answerPath.optional(),
});

const replicationSchema = z.strictObject({
  mode: z.enum(['incremental', 'full_refresh']),
  /** The record field an incremental run resumes from (a datetime or integer field). */
  cursor_field: dottedName.optional(),
  /** The list param that filters by the cursor, and the form the upstream wants it in. */
  since: z
    .strictObject({
      param: name,
      format: z.enum(['as_is', 'iso', 'seconds', 'day']),
      /** Its name upstream, when it differs (`created_at[gte]`). */
      upstream_name: z.string().min(1).max(128).optional(),
    })
    .optional(),
  /** An edit upstream moves the cursor (an "updated since" filter). */
  sees_edits: z.boolean().optional(),
  /** A deletion upstream reaches incremental reads, or records are never deleted. */
  sees_deletions: z.boolean().optional(),
  /** The vendor's documented delay before a record appears in its list. */
  lookback_s: z
    .int()
    .min(0)
    .max(7 * 86_400)
    .optional(),
  /** The first page's params of a replication read (the largest page size...). */
  page_params: z.record(name, z.union([z.string(), z.number(), z.boolean()])).optional(),
  /** Read once per record of another entity: `params[param] = parent[from]`. */
  parent: z.strictObject({ entity: name, param: name, from: dottedName }).optional(),
});

const entitySchema = z.strictObject({
  key: dottedName,
  fields: z.record(dottedName, field),
  /** The fields search and SQL can use: every field, or a list of them. */
  searchable: z.union([z.literal('all'), z.array(dottedName).max(200)]).optional(),
  /** Text fields that carry meaning, for semantic search. */
  embed: z.array(dottedName).max(16).optional(),
  /** Fields named otherwise than the vendor: field → the vendor's field, copied when the record lacks the field. */
  aliases: z.record(dottedName, dottedName).optional(),
  list: listSchema.optional(),
  get: getSchema.optional(),
  create: writeSchema.optional(),
  update: writeSchema.optional(),
  delete: writeSchema.optional(),
  replication: replicationSchema.optional(),
});
export type DefinedEntity = z.infer<typeof entitySchema>;

const apiKeyAuth = z.strictObject({
  type: z.literal('api_key'),
  in: z.enum(['header', 'query']),
  name: z.string().min(1).max(128),
  prefix: z.string().max(64).optional(),
});
const bearerAuth = z.strictObject({ type: z.literal('bearer') });
const basicAuth = z.strictObject({ type: z.literal('basic') });
const oauth2Auth = z.strictObject({
  type: z.literal('oauth2'),
  token_url: z.url({ protocol: /^https?$/ }).max(2048),
  client_auth: z.enum(['form', 'basic']).optional(),
  grant: z.enum(['client_credentials', 'refresh_token']),
  scopes: z.array(z.string().max(256)).max(50).optional(),
  consent: z.strictObject({ authorize_url: z.url({ protocol: /^https?$/ }).max(2048), pkce: z.boolean() }).optional(),
});
export const authSchema = z.discriminatedUnion('type', [apiKeyAuth, bearerAuth, basicAuth, oauth2Auth]);
export type DefinedAuth = z.infer<typeof authSchema>;

const signatureSchema = z.strictObject({
  header: z.string().min(1).max(128),
  algorithm: z.enum(['sha1', 'sha256', 'sha512']),
  encoding: z.enum(['hex', 'base64']),
  /** Text before the signature in the header (`sha256=`, `v1=`, `v1,`). */
  prefix: z.string().max(32).optional(),
  /** What is signed: `{body}`, `{timestamp}` and `{id}` filled in, e.g. `{timestamp}.{body}`. */
  signed: z.string().min(1).max(256).includes('{body}'),
  timestamp_header: z.string().min(1).max(128).optional(),
  /** How the timestamp reads: unix seconds (default) or ISO 8601. */
  timestamp_format: z.enum(['unix', 'iso']).optional(),
  id_header: z.string().min(1).max(128).optional(),
  tolerance_s: z.int().min(1).max(86_400).optional(),
  /** Several signatures in the header (a secret rotation), separated by this; one match is enough. */
  separator: z.string().min(1).max(4).optional(),
  /** The secret as the vendor hands it out: used as text, or a base64 key after a prefix (`whsec_`). */
  secret: z.strictObject({ encoding: z.enum(['utf8', 'base64']), prefix: z.string().max(32).optional() }).optional(),
});

const webhooksSchema = z.strictObject({
  signature: signatureSchema,
  events: z.strictObject({
    /** Where an event names its entity (a dotted path in the body, or `header:<name>`). */
    entity_at: z.string().min(1).max(256),
    /** The entity is the part before this separator (`customer.edited` → `customer`). */
    entity_split: z.string().min(1).max(4).optional(),
    /**
     * Where an event names its record's key: a dotted path, or `header:<name>`. `{entity}` stands for the event's
     * entity name (`{entity}.id` reads `body.customer.id`), `{event}` at the start for the whole name the event gave
     * at `entity_at`, as one key (`{event}.id` reads `body["public_incident.updated"].id`).
     */
    key_at: z.string().min(1).max(256),
    /**
     * Params of the re-read taken from the event (default: the key, as the get path's placeholder): a dotted path,
     * or `{at, match}` where `match` is a regular expression whose first group is the value.
     */
    params: z
      .record(
        name,
        z.union([
          z.string().min(1).max(256),
          z.strictObject({ at: z.string().min(1).max(256), match: z.string().min(1).max(256) }),
        ]),
      )
      .optional(),
    /** Where the event's own id is (absent: the id header, else a hash of the body). */
    id_at: z.string().min(1).max(256).optional(),
    /** Event entity names → the definition's entities (absent: the same names). */
    entities: z.record(z.string().min(1).max(128), name).optional(),
  }),
});
export type DefinedWebhooks = z.infer<typeof webhooksSchema>;

export const connectorDefinitionSchema = z.strictObject({
  name: z.string().max(64).regex(KIND_NAME_PATTERN, 'must be capitalised words joined by hyphens, e.g. Acme-Helpdesk'),
  description: z.string().max(1024).optional(),
  /** The upstream's base URL; may hold `{variable}`s declared in `config`. */
  base_url: z.string().min(1).max(2048),
  config: z
    .record(name, z.strictObject({ pattern: z.string().min(1).max(512), description: z.string().max(512).optional() }))
    .optional(),
  auth: z.union([authSchema, z.array(authSchema).min(1).max(4)]),
  /** Headers every call sends (an API version...). */
  headers: z.record(z.string().min(1).max(128), z.string().max(1024)).optional(),
  rate_limit: z.strictObject({ per_second: z.number().positive().max(10_000), scope: z.string().max(256) }).optional(),
  errors: z
    .strictObject({
      /** Where an error answer holds its message. */
      message_at: answerPath.optional(),
      /** Statuses to read as another class than their own (a 400 that means "rate limited"). */
      rules: z
        .array(
          z.strictObject({
            status: z.int().min(400).max(599),
            body_contains: z.string().max(256).optional(),
            as: z.enum(['rate_limited', 'auth_failed', 'not_found', 'rejected', 'transient']),
          }),
        )
        .max(20)
        .optional(),
    })
    .optional(),
  entities: z.record(name, entitySchema),
  webhooks: webhooksSchema.optional(),
});
export type ConnectorDefinitionDocument = z.infer<typeof connectorDefinitionSchema>;

/** The format as JSON Schema (2020-12), published at GET /api/v1/connector-definitions/schema. */
export function definitionJsonSchema(): Record<string, unknown> {
  return {
    $id: 'https://conduit.dev/schemas/connector-definition.json',
    title: 'Conduit connector definition',
    ...z.toJSONSchema(connectorDefinitionSchema, { target: 'draft-2020-12', unrepresentable: 'any' }),
  };
}
