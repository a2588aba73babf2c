import {
  checkDefinition,
  compileDefinition,
  connectorTypes,
  DEFINITION_LIMITS,
  definitionJsonSchema,
  egressFetch,
  testDefinition,
} from '@conduit/connectors';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../deps.ts';
import { auditAs } from '../../middleware/audit-trail.ts';
import { authenticatedRoute, jsonBody, jsonResponse, mountRoute } from '../../openapi/route-kit.ts';
import { ApiError } from '../../problem.ts';
import { parseJsonText, readJson } from '../../request-body.ts';

type Deps = Pick<ApiDeps, 'connectorDefinitions' | 'hosted'>;

/** Kinds one organization may define (docs/definitions.md, "Limits"). */
export const DEFINITIONS_PER_ORGANIZATION = 20;

const tags = ['Connector definitions'];
const NameParams = z.object({ name: z.string().min(1).max(64) });
const VersionParams = NameParams.extend({ version: z.string().regex(/^\d{1,6}$/) });
const AnyJson = z.record(z.string(), z.unknown());

const VersionSchema = z.object({
  version: z.int(),
  created_at: z.string(),
  activated_at: z.string().nullable(),
});
const DefinitionSchema = z
  .object({
    name: z.string(),
    active_version: z.int().nullable(),
    versions: z.array(VersionSchema),
    definition: AnyJson.optional().describe('the active version’s document'),
  })
  .meta({ id: 'ConnectorDefinition' });

export const TestBody = z.strictObject({
  version: z.int().min(1).optional(),
  credentials: AnyJson,
  config: AnyJson.optional(),
  entities: z.array(z.string().min(1).max(64)).min(1).max(50).optional(),
  max_pages: z.int().min(1).max(5).default(1),
  start_date: z.iso.datetime({ offset: true }).optional(),
});
const ActivateBody = z.strictObject({ version: z.int().min(1) });

const TestResultSchema = z
  .object({
    entities: z.array(
      z.object({
        entity: z.string(),
        records: z.array(AnyJson),
        record_count: z.int(),
        pages: z.int(),
        problems: z.array(z.string()),
      }),
    ),
    requests: z.array(z.object({ method: z.string(), url: z.string(), status: z.int().nullable(), ms: z.number() })),
  })
  .meta({ id: 'DefinitionTestResult' });

export const createDefinitionRoute = authenticatedRoute({
  tags,
  method: 'post',
  path: '/',
  summary: 'Define a connector kind, or add a version of one (docs/definitions.md)',
  request: { body: jsonBody(AnyJson, [], 'the definition document (its JSON Schema: GET .../schema)') },
  responses: { 201: jsonResponse(z.object({ name: z.string(), version: z.int() }), 'the kind and its new version') },
  problems: [400, 403, 413, 422],
});
export const validateDefinitionRoute = authenticatedRoute({
  tags,
  method: 'post',
  path: '/validate',
  summary: 'Check a definition without storing it: every problem at once, each with its JSON pointer',
  request: { body: jsonBody(AnyJson) },
  responses: { 200: jsonResponse(z.object({ valid: z.literal(true) }), 'the definition is valid') },
  problems: [400, 422],
});
export const definitionSchemaRoute = authenticatedRoute({
  tags,
  method: 'get',
  path: '/schema',
  summary: 'The definition format as JSON Schema (2020-12)',
  responses: { 200: jsonResponse(AnyJson, 'the JSON Schema') },
  problems: [],
});
export const listDefinitionsRoute = authenticatedRoute({
  tags,
  method: 'get',
  path: '/',
  summary: 'The kinds the organization defined',
  responses: { 200: jsonResponse(z.object({ data: z.array(DefinitionSchema) }), 'the kinds') },
  problems: [],
});
export const getDefinitionRoute = authenticatedRoute({
  tags,
  method: 'get',
  path: '/{name}',
  summary: 'A defined kind: its versions and the active document',
  request: { params: NameParams },
  responses: { 200: jsonResponse(DefinitionSchema, 'the kind') },
});
export const getDefinitionVersionRoute = authenticatedRoute({
  tags,
  method: 'get',
  path: '/{name}/versions/{version}',
  summary: 'One version of a defined kind',
  request: { params: VersionParams },
  responses: {
    200: jsonResponse(z.object({ name: z.string(), version: z.int(), definition: AnyJson }), 'the version'),
  },
});
export const testDefinitionRoute = authenticatedRoute({
  tags,
  method: 'post',
  path: '/{name}/test',
  summary: 'Read the upstream with a version of the kind, writing nothing: records, pages, requests, problems',
  request: { params: NameParams, body: jsonBody(TestBody) },
  responses: { 200: jsonResponse(TestResultSchema, 'what the upstream answered') },
});
export const activateDefinitionRoute = authenticatedRoute({
  tags,
  method: 'post',
  path: '/{name}/activate',
  summary: 'Make a version the one connectors of the kind use (a rollback activates an older one)',
  request: { params: NameParams, body: jsonBody(ActivateBody, [{ summary: 'version 2', value: { version: 2 } }]) },
  responses: {
    200: jsonResponse(z.object({ name: z.string(), active_version: z.int() }), 'the kind, now at that version'),
  },
});
export const deleteDefinitionRoute = authenticatedRoute({
  tags,
  method: 'delete',
  path: '/{name}',
  summary: 'Remove a defined kind and its versions (409 while a connector uses it)',
  request: { params: NameParams },
  responses: { 204: { description: 'removed' } },
  problems: [400, 404, 409],
});

/** A kind's name from the path; anything that cannot be one is a kind that does not exist. */
function nameParam(c: Context<ApiEnv>): string {
  const name = c.req.param('name') ?? '';
  if (!/^[A-Za-z0-9-]{1,64}$/.test(name)) {
    throw new ApiError(404, 'definition_not_found', `no connector definition ${JSON.stringify(name.slice(0, 64))}`);
  }
  return name;
}

/** The definition problems as a 422 (`invalid_definition`), each with its JSON pointer. */
function invalid(problems: readonly { path: string; message: string }[]): ApiError {
  return new ApiError(422, 'invalid_definition', 'the definition is not valid', [...problems]);
}

/** The body as JSON, within the format's size limit. */
async function definitionBody(c: Context<ApiEnv>): Promise<unknown> {
  const text = await c.req.text();
  if (Buffer.byteLength(text) > DEFINITION_LIMITS.bytes) {
    throw new ApiError(413, 'payload_too_large', `a definition is at most ${DEFINITION_LIMITS.bytes} bytes`);
  }
  return parseJsonText(text, z.unknown());
}

function checked(document: unknown) {
  const check = checkDefinition(document, connectorTypes());
  if (!check.ok) throw invalid(check.problems);
  return check.definition;
}

/** POST, GET, DELETE /api/v1/connector-definitions and a kind's versions, test and activation (docs/definitions.md). */
export function registerConnectorDefinitions(app: OpenAPIHono<ApiEnv>, deps: Deps): void {
  const notFound = (name: string) =>
    new ApiError(404, 'definition_not_found', `no connector definition ${JSON.stringify(name)}`);

  mountRoute(app, definitionSchemaRoute, (c) => c.json(definitionJsonSchema()));

  mountRoute(app, validateDefinitionRoute, async (c) => {
    checked(await definitionBody(c));
    return c.json({ valid: true as const });
  });

  mountRoute(app, createDefinitionRoute, async (c) => {
    const organizationId = c.get('auth').organizationId;
    const definition = checked(await definitionBody(c));
    auditAs(c, { action: 'connector_definition.create', entity: definition.name, params: { name: definition.name } });
    const existing = await deps.connectorDefinitions.find(organizationId, definition.name);
    if (!existing && (await deps.connectorDefinitions.count(organizationId)) >= DEFINITIONS_PER_ORGANIZATION) {
      throw new ApiError(
        403,
        'quota_exceeded',
        `an organization defines at most ${DEFINITIONS_PER_ORGANIZATION} kinds`,
        [
          {
            path: '/name',
            message: `definitions: limit ${DEFINITIONS_PER_ORGANIZATION}, used ${DEFINITIONS_PER_ORGANIZATION}`,
          },
        ],
      );
    }
    const { version } = await deps.connectorDefinitions.addVersion(organizationId, definition.name, definition);
    return c.json({ name: existing?.name ?? definition.name, version }, 201);
  });

  mountRoute(app, listDefinitionsRoute, async (c) => {
    const kinds = await deps.connectorDefinitions.list(c.get('auth').organizationId);
    return c.json({ data: kinds.map(summaryView) });
  });

  mountRoute(app, getDefinitionRoute, async (c) => {
    const organizationId = c.get('auth').organizationId;
    const name = nameParam(c);
    const kind = await deps.connectorDefinitions.find(organizationId, name);
    if (!kind) throw notFound(name);
    const active = await deps.connectorDefinitions.active(organizationId, name);
    return c.json({ ...summaryView(kind), ...(active ? { definition: active.document } : {}) });
  });

  mountRoute(app, getDefinitionVersionRoute, async (c) => {
    const name = nameParam(c);
    const version = Number(c.req.param('version'));
    if (!Number.isSafeInteger(version) || version < 1) {
      throw new ApiError(400, 'invalid_request', 'invalid version', [
        { path: '/version', message: 'must be a positive integer' },
      ]);
    }
    const document = await deps.connectorDefinitions.version(c.get('auth').organizationId, name, version);
    if (!document) throw notFound(`${name} version ${version}`);
    return c.json({ name: String(document.name ?? name), version, definition: document });
  });

  mountRoute(app, testDefinitionRoute, async (c) => {
    const organizationId = c.get('auth').organizationId;
    const name = nameParam(c);
    const body = await readJson(c, TestBody);
    auditAs(c, { action: 'connector_definition.test', entity: name, params: { version: body.version ?? null } });
    const kind = await deps.connectorDefinitions.find(organizationId, name);
    const version = body.version ?? kind?.active_version;
    const document =
      kind && version ? await deps.connectorDefinitions.version(organizationId, name, version) : undefined;
    if (!document) throw notFound(name);
    const definition = checked(document);
    const result = await testDefinition({
      definition: compileDefinition(definition),
      credentials: body.credentials,
      config: body.config ?? {},
      fetch: egressFetch(deps.hosted.kinds.egressOf(definition)),
      entities: body.entities,
      maxPages: body.max_pages,
      since: body.start_date ?? '1970-01-01T00:00:00Z',
      signal: c.req.raw.signal,
    });
    return c.json(result);
  });

  mountRoute(app, activateDefinitionRoute, async (c) => {
    const organizationId = c.get('auth').organizationId;
    const name = nameParam(c);
    const { version } = await readJson(c, ActivateBody);
    auditAs(c, { action: 'connector_definition.activate', entity: name, params: { version } });
    if (!(await deps.connectorDefinitions.activate(organizationId, name, version)))
      throw notFound(`${name} version ${version}`);
    return c.json({
      name: (await deps.connectorDefinitions.find(organizationId, name))?.name ?? name,
      active_version: version,
    });
  });

  mountRoute(app, deleteDefinitionRoute, async (c) => {
    const organizationId = c.get('auth').organizationId;
    const name = nameParam(c);
    auditAs(c, { action: 'connector_definition.delete', entity: name, params: {} });
    const using = await deps.connectorDefinitions.connectorsUsing(organizationId, name);
    if (using > 0) {
      throw new ApiError(409, 'definition_in_use', `${using} connector(s) use ${name}: delete them first`, [
        { path: '/name', message: `used by ${using} connector(s)` },
      ]);
    }
    if (!(await deps.connectorDefinitions.delete(organizationId, name))) throw notFound(name);
    return c.body(null, 204);
  });
}

function summaryView(kind: {
  name: string;
  active_version: number | null;
  versions: readonly { version: number; created_at: Date; activated_at: Date | null }[];
}) {
  return {
    name: kind.name,
    active_version: kind.active_version,
    versions: kind.versions.map((v) => ({
      version: v.version,
      created_at: v.created_at.toISOString(),
      activated_at: v.activated_at?.toISOString() ?? null,
    })),
  };
}
