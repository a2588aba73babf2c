import { randomUUID } from 'node:crypto';
import { readEnv } from '@conduit/config';
import {
  AuditEntriesRepository,
  AuditWriter,
  ClientsRepository,
  createDatabase,
  ensureDatabaseExists,
  migrateToLatest,
} from '@conduit/db';
import { AuditLog } from '@conduit/trusted-calls';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropDatabase, withDatabaseName } from '../../../../test/harness/databases.ts';
import type { ApiEnv } from '../deps.ts';
import { ApiError, problemResponse } from '../problem.ts';
import { auditAs, auditTrail, connectorActionOf, MCP_MARK_HEADER } from './audit-trail.ts';

const env = readEnv();
const databaseUrl = withDatabaseName(
  env.DATABASE_URL,
  `conduit_trail_${randomUUID().replaceAll('-', '').slice(0, 12)}`,
);
const db = createDatabase(databaseUrl, 2);
const entries = new AuditEntriesRepository(db);
let writer: AuditWriter;
let audit: AuditLog;
const BASE = '/api/v1/integrations/connectors';

/** Connector routes behind the trail, as app.ts mounts them; `x-org` picks the caller's organization. */
function app() {
  return new Hono<ApiEnv>()
    .onError((error, c) => problemResponse(c, error))
    .use('*', async (c, next) => {
      c.set('auth', { clientId: 'client-1', organizationId: c.req.header('x-org') ?? 'org-a' });
      await next();
    })
    .use('*', auditTrail({ audit, actionOf: connectorActionOf, mcpMark: 'mark' }))
    .patch(`${BASE}/:id`, async (c) => {
      auditAs(c, { connectorId: c.req.param('id'), params: { name: 'renamed', credentials: '[REDACTED]' } });
      return c.json({ ok: true });
    })
    .delete(`${BASE}/:id`, () => {
      throw new ApiError(404, 'connector_not_found', 'no such connector');
    })
    .get(`${BASE}/:id`, (c) => c.json({ ok: true }));
}

const trail = (organizationId: string) => entries.page({ organizationId, limit: 100 });

beforeAll(async () => {
  await ensureDatabaseExists(databaseUrl);
  await migrateToLatest(db);
  const clients = new ClientsRepository(db);
  for (const organization of ['org-a', 'org-b', 'org-c', 'org-d']) {
    await clients.upsertOrganization(organization, organization);
  }
  writer = new AuditWriter(databaseUrl);
  audit = new AuditLog(writer);
});

afterAll(async () => {
  await writer?.close();
  await db.destroy();
  await dropDatabase(databaseUrl);
});

describe('auditTrail', () => {
  it('writes a call the route names before its answer, with its outcome, the caller and the redacted params', async () => {
    const response = await app().request(`${BASE}/c-1`, { method: 'PATCH', headers: { 'x-org': 'org-a' } });
    expect(response.status).toBe(200);
    const [entry] = await trail('org-a');
    expect(entry).toMatchObject({
      organization_id: 'org-a',
      client_id: 'client-1',
      connector_id: 'c-1',
      action: 'connector.update',
      source: 'api',
      status: 200,
      error_code: null,
      params: { name: 'renamed', credentials: '[REDACTED]' },
    });
  });

  it('writes a refused call too, with its status and error code', async () => {
    const response = await app().request(`${BASE}/c-2`, { method: 'DELETE', headers: { 'x-org': 'org-b' } });
    expect(response.status).toBe(404);
    expect(await trail('org-b')).toEqual([
      expect.objectContaining({ action: 'connector.delete', status: 404, error_code: 'connector_not_found' }),
    ]);
  });

  it('writes nothing for a call that is not audited (a read)', async () => {
    expect((await app().request(`${BASE}/c-3`, { headers: { 'x-org': 'org-c' } })).status).toBe(200);
    expect(await trail('org-c')).toEqual([]);
  });

  it('marks the calls that carry this process’s MCP mark as coming through MCP, and only those', async () => {
    const routes = app();
    await routes.request(`${BASE}/c-4`, { method: 'PATCH', headers: { 'x-org': 'org-d', [MCP_MARK_HEADER]: 'mark' } });
    await routes.request(`${BASE}/c-5`, {
      method: 'PATCH',
      headers: { 'x-org': 'org-d', [MCP_MARK_HEADER]: 'forged' },
    });
    const sources = Object.fromEntries((await trail('org-d')).map((e) => [e.connector_id, e.source]));
    expect(sources).toEqual({ 'c-4': 'mcp', 'c-5': 'api' });
  });
});
