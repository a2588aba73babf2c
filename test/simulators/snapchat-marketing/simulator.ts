import { randomUUID } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { bearerToken } from '../kit/auth-header.ts';
import { FaultInjector } from '../kit/faults.ts';
import { kindOptions, type SimulatorHandle, type SimulatorOptions, simulatorHandle } from '../kit/fixture.ts';
import { type RotatingTokenClient, type RotatingTokenOptions, RotatingTokens } from '../kit/oauth-refresh.ts';
import { listen, type RunningServer } from '../kit/server.ts';
import {
  AD_ACCOUNT_CHILDREN,
  generateSnapData,
  type SnapCollection,
  type SnapData,
  type SnapDataOptions,
  type SnapRecord,
  singular,
} from './data.ts';

/** `accessTokenTtlMs`: Snap's are 1800 s; 60 s by default here. */
export interface SnapSimulatorOptions extends SnapDataOptions, RotatingTokenOptions {
  port?: number;
}

export interface SnapSimulator extends RunningServer, RotatingTokenClient {
  readonly data: SnapData;
  readonly faults: FaultInjector;
  /** Ids that list/get answer with sub_request_status ERROR (Snap's per-item failure). */
  readonly failingIds: Set<string>;
}

const MIN_LIMIT = 50;
const MAX_LIMIT = 1000;

function snapError(status: number, message: string, code = 'E1001') {
  return {
    request_status: 'ERROR',
    request_id: randomUUID(),
    debug_message: message,
    display_message: message,
    error_code: code,
    http_status: status,
  };
}

const TOKEN_ERRORS = { invalidClient: 'Invalid client credentials', invalidGrant: 'Invalid refresh token' };

/**
 * Snap Marketing API as a connector meets it: bearer tokens that expire (401), OAuth refresh with rotating refresh
 * tokens at /login/oauth2/access_token, the `{request_status, paging, <plural>: [{sub_request_status, <singular>}]}`
 * envelope, `limit` 50–1000 with absolute `paging.next_link`, and 429 without Retry-After (Snap sends none).
 */
export function createSnapApp(sim: Omit<SnapSimulator, keyof RunningServer>, options: SnapSimulatorOptions): Hono {
  const app = new Hono();
  const tokens = new RotatingTokens(sim, options, {
    defaultTtlMs: 60_000,
    accessTokenPrefix: 'snap-at-',
    refreshTokenPrefix: 'snap-rt-',
  });

  app.use(
    '*',
    sim.faults.middleware((status) => snapError(status, status === 429 ? 'Too many requests' : 'Internal error')),
  );

  app.post(
    '/login/oauth2/access_token',
    tokens.grant(TOKEN_ERRORS, (issued) => ({
      access_token: issued.accessToken,
      token_type: 'Bearer',
      expires_in: issued.expiresIn,
      refresh_token: issued.refreshToken,
      scope: 'snapchat-marketing-api',
    })),
  );

  app.use('/v1/*', async (c, next) => {
    if (!tokens.accepts(bearerToken(c.req.header('authorization')))) {
      return c.json(snapError(401, 'The access token is invalid or has expired', 'E3003'), 401);
    }
    await next();
  });

  const envelope = (c: Context, collection: SnapCollection, rows: SnapRecord[], nextLink?: string) =>
    c.json({
      request_status: 'SUCCESS',
      request_id: randomUUID(),
      ...(nextLink ? { paging: { next_link: nextLink } } : {}),
      [collection]: rows.map((row) =>
        sim.failingIds.has(row.id)
          ? {
              sub_request_status: 'ERROR',
              sub_request_error_reason: `${singular(collection)} ${row.id} could not be read`,
            }
          : { sub_request_status: 'SUCCESS', [singular(collection)]: row },
      ),
    });

  // https://developers.snap.com/api/marketing-api/Ads-API/introduction#pagination: limit 50–1000, next_link absolute.
  const page = (c: Context, collection: SnapCollection, rows: SnapRecord[]) => {
    const url = new URL(c.req.url);
    const rawLimit = url.searchParams.get('limit');
    if (rawLimit === null) return envelope(c, collection, rows);
    const limit = Number(rawLimit);
    if (!Number.isInteger(limit) || limit < MIN_LIMIT || limit > MAX_LIMIT) {
      return c.json(snapError(400, `limit must be between ${MIN_LIMIT} and ${MAX_LIMIT}`, 'E1008'), 400);
    }
    const cursor = url.searchParams.get('cursor');
    const start = cursor ? Number(Buffer.from(cursor, 'base64url').toString()) : 0;
    if (!Number.isInteger(start) || start < 0) return c.json(snapError(400, 'invalid cursor', 'E1008'), 400);
    const end = start + limit;
    let nextLink: string | undefined;
    if (end < rows.length) {
      const next = new URL(url);
      next.searchParams.set('cursor', Buffer.from(String(end)).toString('base64url'));
      nextLink = next.toString();
    }
    return envelope(c, collection, rows.slice(start, end), nextLink);
  };

  const byId = (collection: SnapCollection) => (c: Context) => {
    const found = sim.data[collection].find((r) => r.id === c.req.param('id'));
    return found
      ? envelope(c, collection, [found])
      : c.json(snapError(404, `${singular(collection)} not found`, 'E2002'), 404);
  };
  const sorted = (rows: SnapRecord[]) => [...rows].sort((a, b) => a.id.localeCompare(b.id));

  app.get('/v1/me/organizations', (c) => page(c, 'organizations', sorted(sim.data.organizations)));
  app.get('/v1/organizations/:id', byId('organizations'));
  app.get('/v1/organizations/:id/adaccounts', (c) => {
    const orgId = c.req.param('id');
    if (!sim.data.organizations.some((o) => o.id === orgId))
      return c.json(snapError(404, 'organization not found', 'E2002'), 404);
    return page(c, 'adaccounts', sorted(sim.data.adaccounts.filter((a) => a.organization_id === orgId)));
  });
  app.get('/v1/adaccounts/:id', byId('adaccounts'));
  for (const child of AD_ACCOUNT_CHILDREN) {
    app.get(`/v1/adaccounts/:id/${child}`, (c) => {
      const accountId = c.req.param('id');
      if (!sim.data.adaccounts.some((a) => a.id === accountId))
        return c.json(snapError(404, 'ad account not found', 'E2002'), 404);
      return page(c, child, sorted(sim.data[child].filter((r) => r.ad_account_id === accountId)));
    });
    app.get(`/v1/${child}/:id`, byId(child));
  }
  app.notFound((c) => c.json(snapError(404, 'Resource not found', 'E2002'), 404));
  return app;
}

export async function startSnapchatMarketingSimulator(options: SnapSimulatorOptions = {}): Promise<SnapSimulator> {
  const state = {
    data: generateSnapData(options),
    faults: new FaultInjector(),
    clientId: 'snap-client-id',
    clientSecret: 'snap-client-secret-5f3a',
    initialRefreshToken: 'snap-rt-initial-9c1d',
    expiredAccessToken: 'snap-at-expired-77e2',
    failingIds: new Set<string>(),
    refreshes: [],
  };
  const server = await listen(createSnapApp(state, options), options.port ?? 0);
  return { ...state, ...server };
}

/** The generic handle (kit/fixture.ts) over the Snap simulator. */
export async function startSnapchatMarketing(options: SimulatorOptions = {}): Promise<SimulatorHandle> {
  const startDate = '2024-01-01T00:00:00Z';
  const sim = await startSnapchatMarketingSimulator({
    ...kindOptions(options, 'perAdAccount'),
    ...(options.tokenSecret === undefined ? {} : { tokenSecret: options.tokenSecret }),
  });
  const first = (name: SnapCollection) => sim.data[name][0]!.id;
  const account = first('adaccounts');
  return simulatorHandle(sim, {
    connectorType: 'Snapchat-Marketing',
    baseUrl: `${sim.url}/v1`,
    tokenUrl: `${sim.url}/login/oauth2/access_token`,
    credentials: {
      client_id: sim.clientId,
      client_secret: sim.clientSecret,
      refresh_token: sim.initialRefreshToken,
      access_token: sim.expiredAccessToken,
    },
    badCredentials: {
      client_id: sim.clientId,
      client_secret: sim.clientSecret,
      refresh_token: 'snap-rt-revoked-0000',
      access_token: 'snap-at-bogus-0000',
    },
    startDate,
    examples: [
      { entity: 'organizations', action: 'list', params: {} },
      { entity: 'organizations', action: 'get', params: { id: first('organizations') } },
      { entity: 'adaccounts', action: 'list', params: { organization_id: first('organizations') } },
      { entity: 'adaccounts', action: 'get', params: { id: account } },
      ...AD_ACCOUNT_CHILDREN.map((child) => ({ entity: child, action: 'list', params: { ad_account_id: account } })),
      ...AD_ACCOUNT_CHILDREN.map((child) => ({
        entity: child,
        action: 'get',
        params: { id: first(child) },
      })),
    ],
    // Every entity is full_refresh (Snap cannot filter by updated_at upstream): replication indexes all of them,
    // whatever start_date says. segments are not searchable, so nothing is expected for them.
    expectedKeys: (entity) =>
      entity === 'segments' ? [] : (sim.data[entity as SnapCollection] ?? []).map((r) => r.id),
  });
}
