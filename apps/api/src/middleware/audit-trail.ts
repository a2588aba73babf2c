import { UpstreamError } from '@conduit/connectors';
import { type AuditedCall, type AuditIntent, type AuditLog, redactForAudit } from '@conduit/trusted-calls';
import type { Context, MiddlewareHandler } from 'hono';
import type { ApiEnv } from '../deps.ts';
import { toProblem } from '../problem.ts';
import { requestStep } from '../request-steps.ts';

/** What a call did, as the audit trail records it; routes add to it with `auditAs`. */
export interface AuditDetails {
  /** `execute.create`, `connector.delete`, `webhook_endpoint.update`, ... */
  readonly action: string;
  readonly connectorId?: string | undefined;
  readonly entity?: string | undefined;
  /** Already redacted (redactForAudit). */
  readonly params?: unknown;
  readonly idempotencyKey?: string | undefined;
  readonly upstreamStatus?: number | undefined;
}

/** Names what the current call does, or adds to it (entity, redacted params, ...): the trail records it answered. */
export function auditAs(c: Context<ApiEnv>, details: Partial<AuditDetails>): void {
  const current = c.get('audit');
  c.set('audit', { action: current?.action ?? 'unknown', ...current, ...details });
}

/**
 * `auditAs`, and the call's intent (who, what, params) is complete: the trail starts writing it now, while the call
 * runs, so that by the time the answer is ready it is durable and only the outcome is left to add. Call it once,
 * before the call's slow part (the upstream, the engine); later `auditAs` calls may add only `upstreamStatus`.
 */
export function beginAudit(c: Context<ApiEnv>, details: Partial<AuditDetails>): void {
  auditAs(c, details);
  c.get('auditBegin')?.();
}

export interface AuditTrailOptions {
  readonly audit: Pick<AuditLog, 'record' | 'begin' | 'admit'>;
  /** False only to measure the trail's cost (AUDIT_TRAIL=off). */
  readonly enabled?: boolean;
  /** The action of a call before its route names it (so a call refused early is audited too); undefined: not audited. */
  readonly actionOf?: (method: string, path: string) => Omit<AuditDetails, 'params'> | undefined;
  /** Marks calls made by MCP tools (a secret of this process on their in-process requests). */
  readonly mcpMark?: string;
}

export const MCP_MARK_HEADER = 'x-conduit-mcp-call';

/**
 * Records every audited call before its answer leaves: its entry is durable (awaited; concurrent ones share one
 * INSERT) or the call fails. A route that calls `beginAudit` has its intent written while it runs and its outcome
 * added at the end; any other audited call is written whole at the end. Mount it after `authenticate`: the caller is
 * who the token says. Calls whose route named no action (`auditAs`) and that `actionOf` does not know are not
 * audited.
 *
 * @example
 * app.use('*', authenticate(deps.tokens), auditTrail({ audit: deps.audit }));
 * // in a route: auditAs(c, { action: 'webhook_endpoint.create', params: redactForAudit(body) });
 */
export function auditTrail(options: AuditTrailOptions): MiddlewareHandler<ApiEnv> {
  const { audit, enabled = true, actionOf, mcpMark } = options;
  if (!enabled) return passThrough;
  return async function auditTrailMiddleware(c, next) {
    const started = performance.now();
    const early = actionOf?.(c.req.method, c.req.path);
    if (early) c.set('audit', early);
    // A trail that cannot take the entry (a spool's full backlog) refuses the call before it runs: a 503 then
    // means nothing was done upstream, so retrying it is safe.
    audit.admit();
    const source = mcpMark !== undefined && c.req.header(MCP_MARK_HEADER) === mcpMark ? 'mcp' : 'api';
    let call: AuditedCall | undefined;
    c.set('auditBegin', () => {
      const details = c.get('audit');
      const auth = c.get('auth');
      if (call || !details || !auth) return;
      call = audit.begin(intentOf(c, details, source));
    });
    await next();
    const details = c.get('audit');
    if (!details || !c.get('auth')) return;
    const error = c.error;
    const upstreamStatus =
      details.upstreamStatus ?? (error instanceof UpstreamError ? (error.upstreamStatus ?? undefined) : undefined);
    const outcome = {
      status: c.res.status,
      errorCode: error ? toProblem(error).problem.code : null,
      upstreamStatus: upstreamStatus ?? null,
      latencyMs: performance.now() - started,
    };
    requestStep('audit entry sent');
    if (call) await call.finish(outcome);
    else await audit.record({ ...intentOf(c, details, source), ...outcome });
    requestStep('audit entry committed');
  };
}

/** The trail switched off (AUDIT_TRAIL=off): no step of its own on the request's way. */
const passThrough: MiddlewareHandler<ApiEnv> = (_c, next) => next();

function intentOf(c: Context<ApiEnv>, details: AuditDetails, source: 'api' | 'mcp'): AuditIntent {
  const auth = c.get('auth');
  return {
    organizationId: auth.organizationId,
    clientId: auth.clientId,
    connectorId: details.connectorId ?? null,
    source,
    action: details.action,
    entity: details.entity ?? null,
    params: details.params,
    idempotencyKey: details.idempotencyKey ?? null,
    requestId: c.get('requestId') ?? null,
  };
}

const CONNECTOR_PATH = /^\/api\/v1\/integrations\/connectors(?:\/([^/]+))?(?:\/([^/]+))?\/?$/;

/** The audited calls of /api/v1/integrations/connectors, by method and path. */
export function connectorActionOf(method: string, path: string): Omit<AuditDetails, 'params'> | undefined {
  const match = CONNECTOR_PATH.exec(path);
  if (!match) return undefined;
  const [, id, sub] = match;
  if (id === undefined) return method === 'POST' ? { action: 'connector.create' } : undefined;
  // Not a connector id (the route answers 404 and names no connector): audited without one.
  const connectorId = /^[A-Za-z0-9-]{1,64}$/.test(id) && id !== 'oauth' ? id : undefined;
  if (id === 'oauth') return undefined;
  if (sub === undefined) {
    if (method === 'PATCH') return { action: 'connector.update', connectorId };
    if (method === 'DELETE') return { action: 'connector.delete', connectorId };
    return undefined;
  }
  if (sub === 'execute' && method === 'POST') return { action: 'execute', connectorId };
  if (sub === 'sync' && method === 'POST') return { action: 'connector.sync', connectorId };
  // Reads of the copy, audited as execute search is.
  if (sub === 'sql' && method === 'POST') return { action: 'connector.sql', connectorId };
  if (sub === 'changes' && method === 'GET') return { action: 'connector.changes', connectorId };
  return undefined;
}

const DEFINITION_PATH = /^\/api\/v1\/connector-definitions(?:\/([^/]+))?(?:\/([^/]+))?\/?$/;

/** The audited calls of /api/v1/connector-definitions: those that change or test a kind. */
export function definitionActionOf(method: string, path: string): Omit<AuditDetails, 'params'> | undefined {
  const match = DEFINITION_PATH.exec(path);
  if (!match) return undefined;
  const [, name, sub] = match;
  if (method === 'POST' && name === undefined) return { action: 'connector_definition.create' };
  if (method === 'DELETE' && name !== undefined && sub === undefined) return { action: 'connector_definition.delete' };
  if (method === 'POST' && (sub === 'activate' || sub === 'test')) return { action: `connector_definition.${sub}` };
  return undefined;
}

const WEBHOOK_ENDPOINT_PATH = /^\/api\/v1\/webhook-endpoints(?:\/([^/]+))?(?:\/([^/]+))?\/?$/;

/**
 * The audited calls of /api/v1/webhook-endpoints: every change of an endpoint (create, update, delete) and every
 * replay; reads are not audited. An endpoint's secret is made by the server and never part of a request.
 */
export function webhookEndpointActionOf(method: string, path: string): Omit<AuditDetails, 'params'> | undefined {
  const match = WEBHOOK_ENDPOINT_PATH.exec(path);
  if (!match) return undefined;
  const [, id, sub] = match;
  if (id === undefined) return method === 'POST' ? { action: 'webhook_endpoint.create' } : undefined;
  if (sub === undefined) {
    if (method === 'PATCH') return { action: 'webhook_endpoint.update' };
    if (method === 'DELETE') return { action: 'webhook_endpoint.delete' };
    return undefined;
  }
  return sub === 'replay' && method === 'POST' ? { action: 'webhook_endpoint.replay' } : undefined;
}

interface JsonRpcMessage {
  method?: unknown;
  params?: { name?: unknown; arguments?: unknown };
}

/**
 * The audit trail of POST /mcp: one entry per tool call (`mcp.tool_call`, the tool's name and its redacted
 * arguments), its intent written while the tool runs and its outcome before the answer leaves. The API calls a tool
 * makes are audited too, as `source: mcp`. Mount it after mcpMessage, which parses the message and refuses batches,
 * so no tool runs without its entry.
 */
export function auditMcpToolCalls(options: Pick<AuditTrailOptions, 'audit' | 'enabled'>): MiddlewareHandler<ApiEnv> {
  const { audit, enabled = true } = options;
  return async function auditMcpMiddleware(c, next) {
    if (!enabled || c.req.method !== 'POST') return next();
    const started = performance.now();
    // Parsed (and refused when too deep or a batch) by mcpMessage, mounted before this.
    const message = c.get('mcpMessage') as JsonRpcMessage | undefined;
    const auth = c.get('auth');
    if (message?.method !== 'tools/call' || !auth) return next();
    const args = message.params?.arguments;
    const connectorId =
      args && typeof args === 'object' && typeof (args as { connector_id?: unknown }).connector_id === 'string'
        ? (args as { connector_id: string }).connector_id
        : null;
    const call = audit.begin({
      organizationId: auth.organizationId,
      clientId: auth.clientId,
      connectorId,
      source: 'mcp',
      action: 'mcp.tool_call',
      entity: typeof message.params?.name === 'string' ? message.params.name : null,
      params: redactForAudit({ tool: message.params?.name, arguments: args }),
      requestId: c.get('requestId') ?? null,
    });
    await next();
    const answer = (await c.res
      .clone()
      .json()
      .catch(() => undefined)) as { result?: { isError?: unknown }; error?: unknown } | undefined;
    const failed = answer?.error !== undefined || answer?.result?.isError === true;
    await call.finish({
      status: c.res.status,
      errorCode: failed ? 'tool_error' : null,
      latencyMs: performance.now() - started,
    });
  };
}
