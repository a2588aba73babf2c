import { CONNECTOR_DEFINITIONS, entityActions, entityOf } from '@conduit/connectors';
import type { Handler } from 'hono';
import { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../deps.ts';
import { auditAs, beginAudit } from '../../middleware/audit-trail.ts';
import { ConnectorIdParams, ExecuteBody } from '../../openapi/connector-bodies.ts';
import { executeExamples } from '../../openapi/examples.ts';
import { ExecuteRequest } from '../../openapi/request-schemas.ts';
import { authenticatedRoute, defineRoutes, jsonBody } from '../../openapi/route-kit.ts';
import { ExecuteResultSchema } from '../../openapi/schemas.ts';
import { ApiError } from '../../problem.ts';
import { parseJsonText } from '../../request-body.ts';
import { auditParams } from '../../services/audit-params.ts';
import {
  IDEMPOTENCY_HEADER,
  idempotencyKeyOf,
  isWriteAction,
  REPLAYED_HEADER,
} from '../../services/idempotent-execute.ts';
import { reflectWrite } from '../../services/read-your-writes.ts';
import { answerResponse, IfNoneMatchHeader, NOT_MODIFIED } from './answer-response.ts';
import { loadConnector } from './load.ts';

const ONE_MIB = 1024 * 1024;
const UPLOAD_ENTITY = 'files_upload';
const PASSED_HEADERS = [
  'content-type',
  'content-length',
  'content-range',
  'content-disposition',
  'accept-ranges',
  'etag',
];

export const executeRoute = authenticatedRoute({
  tags: ['Execute and search'],
  method: 'post',
  path: '/{connector_id}/execute',
  summary: 'Execute {entity, action, params}: search answers from the index, the rest passes through live',
  request: {
    params: ConnectorIdParams,
    headers: z.object({
      'Idempotency-Key': z.string().min(1).max(255).optional().meta({
        description:
          'Makes a write (create, update, delete) safe to retry for 24 h: the same key and request replay the first answer (Idempotent-Replayed: true); see docs/trusted-calls.md',
        example: 'order-4711-create',
      }),
      'If-None-Match': IfNoneMatchHeader,
    }),
    body: jsonBody(
      ExecuteRequest,
      CONNECTOR_DEFINITIONS.flatMap(({ catalog }) =>
        executeExamples(catalog).map((e) => ({ summary: `${catalog.connectorType}: ${e.summary}`, value: e.value })),
      ),
    ),
  },
  responses: {
    200: {
      description: 'JSON results, or for download the bytes themselves (streamed, upstream Content-Type)',
      content: {
        'application/json': { schema: ExecuteResultSchema },
        'application/octet-stream': { schema: z.string().meta({ format: 'binary' }) },
      },
    },
    206: { description: 'a byte range of a download (range_header)' },
    304: { description: `search: ${NOT_MODIFIED.description}` },
  },
  problems: [400, 404, 409, 413, 422, 502, 503],
});

/** POST /api/v1/integrations/connectors/{id}/execute: search answers from the index, the rest goes live. */
export const executeRoutes = defineRoutes({ execute: executeRoute }, (deps: ApiDeps) => ({ execute: execute(deps) }), {
  methodOnly: ['execute'],
});

function execute(deps: ApiDeps): Handler<ApiEnv> {
  return async (c) => {
    // Cached: searches must not wait on Postgres. Live actions re-read the row below (rotated credentials).
    const { row: cachedRow, catalog } = await loadConnector(c, deps, deps.connectorCache);
    // The envelope here; entity, action and params are checked against the connector's kind (the documented
    // branches) by the connector itself and by the search language, with did-you-mean hints.
    const text = await c.req.text();
    const body = parseJsonText(text, ExecuteBody);
    // The body limit lets execute through up to the upload size; only files_upload may use it. A UTF-8 byte is at
    // most 3 per UTF-16 unit, so a short text needs no count.
    if (body.entity !== UPLOAD_ENTITY && text.length * 3 > ONE_MIB && Buffer.byteLength(text) > ONE_MIB) {
      throw new ApiError(413, 'payload_too_large', 'the request body is over 1 MiB (only files_upload may be larger)');
    }
    const idempotencyKey = isWriteAction(body.action) ? idempotencyKeyOf(c.req.header(IDEMPOTENCY_HEADER)) : undefined;
    beginAudit(c, {
      action: `execute.${body.action}`,
      entity: body.entity,
      params: auditParams(catalog, body.params),
      idempotencyKey,
    });
    const entity = entityOf(catalog, body.entity);
    if (body.action === 'search' && entity && entityActions(entity).includes('search')) {
      // Already JSON: search-dsl writes the page from the engine's bytes (searchPageJson).
      const answer = await deps.search.search(cachedRow, entity, body.params ?? {}, {
        signal: c.req.raw.signal,
        requestId: c.get('requestId'),
        ifNoneMatch: c.req.header('if-none-match'),
      });
      return answerResponse(c, answer);
    }
    const { row, kind } = await loadConnector(c, deps);
    // Live actions: the same code as direct mode; it also reports unknown entities and actions.
    // The trail keeps the upstream's last answer status (a 429 that was waited out, then the 200).
    const connector = await deps.hosted.forRow(row, {
      kind,
      lane: 'live',
      observe: (status) => {
        if (status !== null) auditAs(c, { upstreamStatus: status });
      },
    });
    const reflect = (params: Record<string, unknown>, result: unknown, signal?: AbortSignal) =>
      // A write to a replicated entity is in the copy before the answer (read-your-writes).
      reflectWrite({ ...deps, logger: c.get('logger') }, row, catalog, {
        entity: body.entity,
        action: body.action,
        params,
        result,
        ...(signal ? { signal } : {}),
      });
    const key = idempotencyKey;
    if (key !== undefined) {
      // A keyed write runs to its end even when the caller hangs up: its retry then gets the kept answer.
      const answer = await deps.idempotency.execute({
        organizationId: c.get('auth').organizationId,
        connectorId: row.id,
        key,
        request: { entity: body.entity, action: body.action, params: body.params ?? {} },
        prepare: () => connector.prepareWrite(body),
        run: async (params) => {
          const result = await connector.execute({ entity: body.entity, action: body.action, params });
          if (result.type !== 'json') throw new Error(`${body.entity}.${body.action} answered a stream`);
          await reflect(params, result.body);
          return result.body;
        },
      });
      return c.body(answer.body, answer.status as 200, {
        'content-type': answer.status >= 400 ? 'application/problem+json' : 'application/json',
        ...(answer.replayed ? { [REPLAYED_HEADER]: 'true' } : {}),
      });
    }
    const result = await connector.execute({ ...body, signal: c.req.raw.signal });
    if (result.type === 'json') {
      await reflect(body.params ?? {}, result.body, c.req.raw.signal);
      return c.json(result.body);
    }
    const { download } = result;
    const headers = new Headers();
    for (const name of PASSED_HEADERS) {
      const value = download.headers.get(name);
      if (value !== null) headers.set(name, value);
    }
    if (!headers.has('content-disposition')) headers.set('content-disposition', 'attachment');
    return new Response(download.body, {
      status: download.status,
      headers,
    });
  };
}
