import { SqlRequestSchema } from '@conduit/search-dsl';
import { redactForAudit } from '@conduit/trusted-calls';
import { z } from 'zod';
import type { ApiDeps } from '../../deps.ts';
import { auditAs } from '../../middleware/audit-trail.ts';
import { ConnectorIdParams } from '../../openapi/connector-bodies.ts';
import { authenticatedRoute, defineRoutes, jsonBody } from '../../openapi/route-kit.ts';
import { SqlResultSchema } from '../../openapi/schemas.ts';
import { readJson } from '../../request-body.ts';
import { answerResponse, IfNoneMatchHeader, NOT_MODIFIED } from './answer-response.ts';
import { loadConnector } from './load.ts';

export const sqlRoute = authenticatedRoute({
  tags: ['Execute and search'],
  method: 'post',
  path: '/{connector_id}/sql',
  summary: 'SQL over the synchronized copy: one SELECT over the searchable entities (docs/sql.md)',
  description:
    'Tables are the searchable entities, columns their searchable fields ("billing_address.city" in double quotes). ' +
    'WHERE, GROUP BY (paged by cursor through every group), HAVING, ORDER BY columns or aggregates, LIMIT; ' +
    'COUNT, COUNT(DISTINCT), SUM, AVG, MIN, MAX, DATE_TRUNC, fuzzy(col, text), keyword(col, text). ' +
    'Anything else is a 400 invalid_sql at its line and column.',
  request: {
    params: ConnectorIdParams,
    headers: z.object({ 'If-None-Match': IfNoneMatchHeader }),
    body: jsonBody(SqlRequestSchema, [
      {
        summary: 'Orb: invoices per status with revenue, largest first',
        value: {
          query:
            "SELECT status, COUNT(*) AS invoices, SUM(total) AS revenue FROM invoices WHERE invoice_date >= '2024-01-01' GROUP BY status ORDER BY revenue DESC",
        },
      },
      {
        summary: 'Orb: invoices per month',
        value: {
          query: "SELECT DATE_TRUNC('month', invoice_date) AS month, COUNT(*) FROM invoices GROUP BY 1 ORDER BY 1",
        },
      },
    ]),
  },
  responses: {
    200: { description: 'One page of rows', content: { 'application/json': { schema: SqlResultSchema } } },
    304: NOT_MODIFIED,
  },
  problems: [400, 404, 429, 503],
});

/** POST /api/v1/integrations/connectors/{id}/sql: read-only SQL over the copy, compiled like `search`. */
export const sqlRoutes = defineRoutes(
  { sql: sqlRoute },
  (deps: ApiDeps) => ({
    sql: async (c) => {
      const { row, catalog } = await loadConnector(c, deps, deps.connectorCache);
      const body = await readJson(c, SqlRequestSchema);
      auditAs(c, { params: redactForAudit(body) });
      // The caller going away cancels the request's engine searches (docs/sql.md, "Budget").
      const answer = await deps.search.sql(row, catalog, body, {
        signal: c.req.raw.signal,
        requestId: c.get('requestId'),
        ifNoneMatch: c.req.header('if-none-match'),
      });
      // Already JSON: a `SELECT *` page is written from the engine's bytes, as search's are.
      return answerResponse(c, answer);
    },
  }),
  { methodOnly: ['sql'] },
);
