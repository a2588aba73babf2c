import {
  type Conduit,
  ConduitProblem,
  type ConnectorType,
  type ConnectorView,
  type ProblemDetails,
} from '@conduit/client';
import {
  type Continuation,
  DEFAULT_BUDGET_CHARS,
  DESCRIPTION_BUDGET_CHARS,
  decodeContinuation,
  encodeContinuation,
  fitRecords,
  requestHash,
  tablesWithinBudget,
} from './budget.ts';
import {
  callerKindCatalog,
  definedKindCatalog,
  type EntityCatalog,
  type KindCatalog,
  kindCatalog,
  kindCatalogs,
  toolSlug,
} from './catalog.ts';
import { callDefinitionTool, DEFINITION_TOOLS } from './definition-tools.ts';
import { describeEntity, describeKind } from './describe.ts';
import { executeToolSchema, type JsonSchema, searchToolSchema, sqlToolSchema } from './json-schemas.ts';

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
}

export type ToolContent =
  | { type: 'text'; text: string }
  | { type: 'resource'; resource: { uri: string; mimeType: string; blob: string } };

export interface ToolResult {
  content: ToolContent[];
  isError?: boolean;
  [key: string]: unknown;
}

export interface ToolOptions {
  /** Largest answer, in characters of JSON, before it is cut between records with a cursor (default 24,000). */
  budgetChars?: number;
}

type Args = Record<string, unknown>;

/** A problem raised by the MCP layer itself (arguments it checks before calling the API). */
const problem = (detail: string, path: string, code = 'invalid_request'): ConduitProblem =>
  new ConduitProblem({
    type: 'about:blank',
    title: 'Bad Request',
    status: 400,
    detail,
    code,
    errors: [{ path, message: detail }],
  });

let cached: ToolDefinition[] | undefined;

/**
 * The tools for a caller: list and describe connectors, then for each kind the caller has a connector of, one
 * execute tool and (when the kind has searchable entities) one search tool. Without `connectorTypes`, every kind.
 */
export function toolDefinitions(connectorTypes?: readonly string[]): ToolDefinition[] {
  cached ??= allToolDefinitions();
  if (!connectorTypes) return cached;
  const slugs = new Set(connectorTypes.map(toolSlug));
  return cached.filter(
    (t) =>
      t.name === 'list_connectors' ||
      t.name === 'describe_connector' ||
      t.name === 'changes' ||
      DEFINITION_TOOLS.some((d) => d.name === t.name) ||
      slugs.has(t.name.replace(/_(execute|search|sql)$/, '')),
  );
}

/**
 * The tools a caller sees: those of the kinds of its connectors (tool schemas are large; other kinds are noise),
 * the kinds its organization defined included.
 */
export async function toolsFor(conduit: Conduit): Promise<ToolDefinition[]> {
  const types = [...new Set((await conduit.connectors.list()).map((c) => c.connector_type))];
  const defined = await Promise.all(
    types.filter((type) => !kindCatalog(type)).map((type) => definedKindCatalog(conduit, type)),
  );
  return [...toolDefinitions(types), ...defined.flatMap((kind) => (kind ? kindToolDefinitions(kind) : []))];
}

/** The caller's kind whose tools `name` is one of, and the verb (`execute`, `search`, `sql`). */
async function kindOfTool(conduit: Conduit, name: string): Promise<{ kind: KindCatalog; verb: string } | undefined> {
  const verb = /_(execute|search|sql)$/.exec(name)?.[1];
  if (!verb) return undefined;
  const builtIn = kindCatalogs().find((k) => name === `${toolSlug(k.connectorType)}_${verb}`);
  if (builtIn) return { kind: builtIn, verb };
  const types = new Set((await conduit.connectors.list()).map((c) => c.connector_type));
  for (const type of types) {
    if (name !== `${toolSlug(type)}_${verb}` || kindCatalog(type)) continue;
    const kind = await definedKindCatalog(conduit, type);
    if (kind) return { kind, verb };
  }
  return undefined;
}

function allToolDefinitions(): ToolDefinition[] {
  const tools: ToolDefinition[] = [
    {
      name: 'list_connectors',
      title: 'List connectors',
      description:
        "The caller's connectors: id, kind (connector_type), name, and each replicated entity's sync status. Start here.",
      inputSchema: {
        type: 'object',
        properties: { cursor: { type: 'string', description: 'meta.cursor of a previous answer' } },
        additionalProperties: false,
      },
    },
    {
      name: 'describe_connector',
      title: 'Describe a connector',
      description:
        'A connector and its kind: entities, live actions with their parameters (JSON Schema), searchable fields with ' +
        'their types and operators, and example tool calls. Give `entity` for the full detail of one entity.',
      inputSchema: {
        type: 'object',
        properties: { connector_id: { type: 'string' }, entity: { type: 'string' } },
        required: ['connector_id'],
        additionalProperties: false,
      },
    },
    {
      name: 'changes',
      title: 'What changed in a connector',
      description:
        "A connector's change feed: every record created, updated (content changed) or deleted in its synchronized " +
        'copy, oldest first, with the record and the source of the change. Pass meta.cursor back as `after` to ' +
        'continue; `after: "latest"` answers only a cursor, from which later calls see what changes next.',
      inputSchema: {
        type: 'object',
        properties: {
          connector_id: { type: 'string' },
          after: { type: 'string', description: 'meta.cursor of a previous answer, or latest' },
          entity: { type: 'string', description: 'only this entity' },
          limit: { type: 'integer', minimum: 1, maximum: 1000, description: 'events at most (default 100)' },
        },
        required: ['connector_id'],
        additionalProperties: false,
      },
    },
  ];
  tools.push(...DEFINITION_TOOLS);
  for (const kind of kindCatalogs()) tools.push(...kindToolDefinitions(kind));
  return tools;
}

/** A kind's tools: execute, and search and SQL when it has searchable entities. */
function kindToolDefinitions(kind: KindCatalog): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  const slug = toolSlug(kind.connectorType);
  tools.push({
    name: `${slug}_execute`,
    title: `${kind.connectorType}: execute an action`,
    description:
      `Runs a live action (list, get, create, update, delete, download) of a ${kind.connectorType} ` +
      `(${kind.purpose}) connector against the upstream, with the stored credentials. Entities: ` +
      `${Object.keys(kind.entities).join(', ')}. Long lists are cut to a size budget: pass meta.cursor back to continue.`,
    inputSchema: executeToolSchema(kind) as ToolDefinition['inputSchema'],
  });
  const search = searchToolSchema(kind);
  if (search) {
    tools.push({
      name: `${slug}_search`,
      title: `${kind.connectorType}: search`,
      description:
        `Searches the synchronized copy of a ${kind.connectorType} connector's records (never calls the upstream). ` +
        'query.filter is {"<operator>": {"<field>": value}} with operators eq neq gt gte lt lte in like fuzzy keyword ' +
        'contains any not and or; describe_connector lists each field with its operators. Answers are cut to a size ' +
        'budget: while meta.has_more, call again with the same arguments and meta.cursor.' +
        semanticDescription(kind),
      inputSchema: search as ToolDefinition['inputSchema'],
    });
    tools.push({
      name: `${slug}_sql`,
      title: `${kind.connectorType}: SQL`,
      description: sqlDescription(kind),
      inputSchema: sqlToolSchema(kind) as ToolDefinition['inputSchema'],
    });
  }
  return tools;
}

/** What the sql tool takes, with the kind's tables and their columns, within the description budget. */
function sqlDescription(kind: KindCatalog): string {
  const intro =
    `One read-only SELECT over the synchronized copy of a ${kind.connectorType} connector (never calls the upstream). ` +
    "WHERE (= <> < <= > >= IN LIKE ILIKE IS NULL BETWEEN AND OR NOT, fuzzy(col, 'text'), keyword(col, 'text')), " +
    "GROUP BY, HAVING, ORDER BY, LIMIT; COUNT, COUNT(DISTINCT), SUM, AVG, MIN, MAX, DATE_TRUNC('day', col). " +
    'Dotted columns in double quotes: "a.b". While meta.has_more, call again with meta.cursor. Tables: ';
  const tables = Object.values(kind.entities).flatMap((e) =>
    e.searchable ? [[e.name, Object.keys(e.searchable)] as const] : [],
  );
  return intro + tablesWithinBudget(tables, DESCRIPTION_BUDGET_CHARS - intro.length);
}

/** Runs a tool; every failure is a tool error carrying the API's problem details (with the field to fix). */
export async function callTool(conduit: Conduit, name: string, args: Args, options: ToolOptions): Promise<ToolResult> {
  const budget = options.budgetChars ?? DEFAULT_BUDGET_CHARS;
  try {
    if (name === 'list_connectors') return await listConnectors(conduit, args, budget);
    if (name === 'describe_connector') return await describeConnector(conduit, args);
    if (name === 'changes') return await changes(conduit, args, budget);
    const definitionTool = await callDefinitionTool(conduit, name, args);
    if (definitionTool) return json(definitionTool);
    const found = await kindOfTool(conduit, name);
    const searchable = found && Object.values(found.kind.entities).some((e) => e.searchable);
    if (found?.verb === 'execute') return await execute(conduit, found.kind, args, budget);
    if (found?.verb === 'search' && searchable) return await search(conduit, found.kind, args, budget);
    if (found?.verb === 'sql' && searchable) return await sql(conduit, found.kind, args, budget);
    throw problem(`no tool ${name}; tools/list names them`, '/name', 'unknown_tool');
  } catch (error) {
    if (error instanceof ConduitProblem) {
      return toolError(name.endsWith('_search') ? searchPaths(error.toJSON()) : error.toJSON());
    }
    throw error;
  }
}

function json(value: unknown): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }] };
}

function toolError(details: ProblemDetails): ToolResult {
  const fields = (details.errors ?? []).map((e) => `${e.path}: ${e.message}`).join('\n');
  return {
    isError: true,
    content: [
      {
        type: 'text',
        text: `${details.code}: ${details.detail}${fields ? `\n${fields}` : ''}\n${JSON.stringify(details)}`,
      },
    ],
  };
}

/** The search tool takes the API's params at its top level: `/params/query/...` is `/query/...` there. */
function searchPaths(details: ProblemDetails): ProblemDetails {
  if (!details.errors) return details;
  return { ...details, errors: details.errors.map((e) => ({ ...e, path: e.path.replace(/^\/params(?=\/)/, '') })) };
}

function requireString(args: Args, key: string): string {
  const value = args[key];
  if (typeof value !== 'string' || value === '') throw problem(`${key} is required (a string)`, `/${key}`);
  return value;
}

function continuation(args: Args, request: string): Continuation {
  if (args.cursor === undefined) return { page: null, skip: 0, request };
  if (typeof args.cursor !== 'string') throw problem('cursor must be a string', '/cursor');
  const decoded = decodeContinuation(args.cursor, request);
  if (typeof decoded === 'string') throw problem(decoded, '/cursor', 'invalid_cursor');
  return decoded;
}

async function listConnectors(conduit: Conduit, args: Args, budget: number): Promise<ToolResult> {
  const request = requestHash({ tool: 'list_connectors' });
  const at = continuation(args, request);
  const all = (await conduit.connectors.list()).map((c) => ({
    connector_id: c.connector_id,
    connector_type: c.connector_type,
    name: c.name,
    customer_name: c.customer_name,
    entities: Object.fromEntries(
      Object.entries(c.entities).map(([name, s]) => [name, { status: s.status, record_count: s.record_count }]),
    ),
  }));
  const rest = all.slice(at.skip);
  const data = fitRecords(rest, budget);
  const more = data.length < rest.length;
  return json({
    data,
    meta: { has_more: more, cursor: more ? encodeContinuation({ ...at, skip: at.skip + data.length }) : null },
  });
}

/** The caller's connector, checked to be of the tool's kind. */
async function connectorOfKind(conduit: Conduit, args: Args, kind?: KindCatalog): Promise<ConnectorView> {
  const view = await conduit.connectors.get(requireString(args, 'connector_id'));
  if (kind && view.connector_type.toLowerCase() !== kind.connectorType.toLowerCase()) {
    throw problem(
      `connector ${view.connector_id} is a ${view.connector_type} connector; use the ${toolSlug(view.connector_type)}_* tools`,
      '/connector_id',
    );
  }
  return view;
}

async function describeConnector(conduit: Conduit, args: Args): Promise<ToolResult> {
  const view = await connectorOfKind(conduit, args);
  const kind = await callerKindCatalog(conduit, view.connector_type);
  if (!kind) throw problem(`unknown connector kind ${view.connector_type}`, '/connector_id');
  if (args.entity === undefined) return json({ connector: view, ...describeKind(kind, view.connector_id) });
  const entity = entityArg(kind, args);
  return json({ connector: view, ...describeEntity(kind, entity, view.connector_id) });
}

async function changes(conduit: Conduit, args: Args, budget: number): Promise<ToolResult> {
  const view = await connectorOfKind(conduit, args);
  for (const key of ['after', 'entity'] as const) {
    if (args[key] !== undefined && typeof args[key] !== 'string') throw problem(`${key} must be a string`, `/${key}`);
  }
  if (args.limit !== undefined && !Number.isInteger(args.limit)) throw problem('limit must be an integer', '/limit');
  const page = await conduit.connector(view.connector_id, view.connector_type as ConnectorType).changesPage({
    ...(args.after === undefined ? {} : { after: args.after as string }),
    ...(args.entity === undefined ? {} : { entity: args.entity as string }),
    ...(args.limit === undefined ? {} : { limit: args.limit as number }),
  });
  const data = fitRecords(page.data, budget);
  if (data.length === page.data.length) return json(page);
  // Cut to the budget: continue right after the last event given.
  const last = data.at(-1);
  const cursor = last ? last.id.slice(last.id.lastIndexOf('.') + 1) : ((args.after as string | undefined) ?? '0');
  return json({ data, meta: { cursor, has_more: true } });
}

function entityArg(kind: KindCatalog, args: Args): EntityCatalog {
  const name = requireString(args, 'entity');
  const entity = Object.hasOwn(kind.entities, name) ? kind.entities[name] : undefined;
  if (!entity) {
    throw problem(
      `${kind.connectorType} has no entity '${name}'; entities: ${Object.keys(kind.entities).join(', ')}`,
      '/entity',
    );
  }
  return entity;
}

type LooseConnector = {
  execute(request: { entity: string; action: string; params?: unknown }): Promise<unknown>;
};

async function execute(conduit: Conduit, kind: KindCatalog, args: Args, budget: number): Promise<ToolResult> {
  const view = await connectorOfKind(conduit, args, kind);
  const entity = requireString(args, 'entity');
  const action = requireString(args, 'action');
  if (action === 'search') throw problem(`search has its own tool: ${toolSlug(kind.connectorType)}_search`, '/action');
  const params = args.params;
  const request = requestHash({ tool: 'execute', connector: view.connector_id, entity, action, params });
  const at = continuation(args, request);
  const connector = conduit.connector(
    view.connector_id,
    kind.connectorType as ConnectorType,
  ) as unknown as LooseConnector;
  const result = await connector.execute({ entity, action, ...(params === undefined ? {} : { params }) });
  if (action === 'download') return download(result as DownloadLike, view.connector_id, entity, budget);
  const body = result as { data: unknown; meta?: Record<string, unknown> };
  if (!Array.isArray(body.data)) return json(body);
  const rest = body.data.slice(at.skip);
  const data = fitRecords(rest, budget);
  const cut = data.length < rest.length;
  return json({
    data,
    meta: {
      ...body.meta,
      cut_to_budget: cut,
      // The rest of this upstream page; the next upstream page is asked for with the kind's own paging params.
      cursor: cut ? encodeContinuation({ ...at, skip: at.skip + data.length }) : null,
    },
  });
}

type DownloadLike = { body: ReadableStream<Uint8Array>; contentType: string | null; contentLength: number | null };

/** A download small enough for the budget comes back as a resource; a larger one is refused before it is read. */
async function download(
  result: DownloadLike,
  connectorId: string,
  entity: string,
  budget: number,
): Promise<ToolResult> {
  const limit = Math.floor((budget * 3) / 4);
  const tooLarge = () =>
    problem(
      `the file is larger than this tool's ${limit}-byte budget: download it through the HTTP API, or ask for a part with params.range_header`,
      '/params',
      'payload_too_large',
    );
  if (result.contentLength !== null && result.contentLength > limit) {
    await result.body.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of result.body) {
    size += chunk.byteLength;
    if (size > limit) throw tooLarge();
    chunks.push(chunk);
  }
  return {
    content: [
      {
        type: 'resource',
        resource: {
          uri: `conduit://connectors/${encodeURIComponent(connectorId)}/${encodeURIComponent(entity)}/download`,
          mimeType: result.contentType ?? 'application/octet-stream',
          blob: Buffer.concat(chunks).toString('base64'),
        },
      },
    ],
  };
}

async function search(conduit: Conduit, kind: KindCatalog, args: Args, budget: number): Promise<ToolResult> {
  const view = await connectorOfKind(conduit, args, kind);
  const entity = requireString(args, 'entity');
  const { cursor: _cursor, connector_id: _id, entity: _entity, ...searchArgs } = args;
  const request = requestHash({ tool: 'search', connector: view.connector_id, entity, searchArgs });
  const at = continuation(args, request);
  const params = { limit: 100, ...searchArgs, ...(at.page ? { cursor: at.page } : {}) };
  const connector = conduit.connector(
    view.connector_id,
    kind.connectorType as ConnectorType,
  ) as unknown as LooseConnector;
  const page = (await connector.execute({ entity, action: 'search', params })) as ApiPage;
  return budgetedPage(page, at, request, budget);
}

type ApiPage = { data: unknown[]; meta: { has_more: boolean; cursor: string | null } & Record<string, unknown> };

/**
 * An API page (search or SQL) as a tool answer: the rows from `at.skip` that fit the budget, whole; the cursor
 * continues within this page when rows were cut, else with the API's next page.
 */
function budgetedPage(page: ApiPage, at: Continuation, request: string, budget: number): ToolResult {
  const rest = page.data.slice(at.skip);
  const { cursor: _apiCursor, has_more: _hasMore, ...meta } = page.meta;
  const data = fitRecords(rest, budget - JSON.stringify(meta).length);
  const cut = data.length < rest.length;
  const next: Continuation | null = cut
    ? { ...at, skip: at.skip + data.length }
    : page.meta.has_more && page.meta.cursor
      ? { page: page.meta.cursor, skip: 0, request }
      : null;
  return json({
    data,
    meta: { ...meta, has_more: next !== null, cursor: next ? encodeContinuation(next) : null, cut_to_budget: cut },
  });
}

/** The sql tool: the API's pages, each cut to the budget between rows, as search does. */
async function sql(conduit: Conduit, kind: KindCatalog, args: Args, budget: number): Promise<ToolResult> {
  const view = await connectorOfKind(conduit, args, kind);
  const query = requireString(args, 'query');
  const limit = args.limit === undefined ? 100 : args.limit;
  if (typeof limit !== 'number') throw problem('limit must be a number', '/limit');
  const request = requestHash({ tool: 'sql', connector: view.connector_id, query, limit });
  const at = continuation(args, request);
  const connector = conduit.connector(view.connector_id, kind.connectorType as ConnectorType) as unknown as {
    sql(query: string, options: { limit?: number; cursor?: string }): Promise<ApiPage>;
  };
  const page = await connector.sql(query, { limit, ...(at.page ? { cursor: at.page } : {}) });
  return budgetedPage(page, at, request, budget);
}

/** What the search tool says about `query.semantic`, for kinds whose entities embed fields (docs/search.md). */
function semanticDescription(kind: KindCatalog): string {
  const embedded = Object.values(kind.entities).filter((e) => e.searchable && e.embed?.length);
  if (embedded.length === 0) return '';
  return (
    ' To find records by meaning rather than exact words, add query.semantic: {"text": "<what you are looking for, ' +
    'in plain words>"} (optionally "fields" and "min_score" 0-1): the records matching query.filter come ranked by ' +
    'meaning and words together, best first, each score in meta.scores; no sort with it. Entities searched by ' +
    `meaning: ${embedded.map((e) => `${e.name} (${(e.embed ?? []).join(', ')})`).join('; ')}.`
  );
}
