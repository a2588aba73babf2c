import { createHash, randomUUID } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { bearerToken } from '../kit/auth-header.ts';
import type { FaultInjector } from '../kit/faults.ts';
import { type RotatingTokenClient, type RotatingTokenOptions, RotatingTokens } from '../kit/oauth-refresh.ts';
import type { RunningServer } from '../kit/server.ts';
import type { GoogleAdsData, GoogleAdsDataOptions } from './data.ts';
import { GaqlError, parseGaql } from './gaql.ts';
import { type AdsFailure, applyMutate, MutateError } from './mutate.ts';
import { runQuery } from './rows.ts';

export const API_VERSION = 'v23';

export interface GoogleAdsSimulatorOptions extends GoogleAdsDataOptions, RotatingTokenOptions {
  port?: number;
  /** Rows per googleAds:search page: fixed at 10,000 upstream; smaller here to exercise paging. */
  rowsPerPage?: number;
}

export interface GoogleAdsSimulator extends RunningServer, RotatingTokenClient {
  readonly data: GoogleAdsData;
  readonly faults: FaultInjector;
  readonly developerToken: string;
  /** An access token valid for the simulator's lifetime. */
  readonly accessToken: string;
  /** Bodies of googleAds:search requests, for tests (e.g. that pageSize is never sent). */
  readonly searches: { customerId: string; body: Record<string, unknown> }[];
}

/** The Google Ads error envelope: google.rpc.Status with a GoogleAdsFailure in details. */
export function adsError(
  code: number,
  status: string,
  message: string,
  errors: readonly AdsFailure[] | readonly object[],
) {
  return {
    error: {
      code,
      message,
      status,
      details: [
        {
          '@type': `type.googleapis.com/google.ads.googleads.${API_VERSION}.errors.GoogleAdsFailure`,
          errors,
          requestId: randomUUID().replaceAll('-', '').slice(0, 22),
        },
      ],
    },
  };
}

/** 429 as Google Ads sends it: RESOURCE_EXHAUSTED with QuotaErrorDetails.retryDelay, and no Retry-After header. */
export function resourceExhausted(retryDelaySeconds = 1) {
  return adsError(429, 'RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).', [
    {
      errorCode: { quotaError: 'RESOURCE_EXHAUSTED' },
      message: `Too many requests. Retry in ${retryDelaySeconds} seconds.`,
      details: {
        quotaErrorDetails: {
          rateScope: 'DEVELOPER',
          rateName: 'Number of operations for basic access',
          retryDelay: `${retryDelaySeconds}s`,
        },
      },
    },
  ]);
}

const invalid = (errorCode: Record<string, string>, message: string) =>
  adsError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', [{ errorCode, message }]);
const unauthenticated = (errorCode: Record<string, string>, message: string) =>
  adsError(401, 'UNAUTHENTICATED', message, [{ errorCode, message }]);
const denied = (message: string) =>
  adsError(403, 'PERMISSION_DENIED', message, [
    { errorCode: { authorizationError: 'USER_PERMISSION_DENIED' }, message },
  ]);

const pageToken = (hash: string, offset: number) =>
  Buffer.from(JSON.stringify({ h: hash, o: offset })).toString('base64url');

function readToken(token: string, hash: string): number | null {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString()) as { h?: unknown; o?: unknown };
    return parsed.h === hash && typeof parsed.o === 'number' ? parsed.o : null;
  } catch {
    return null;
  }
}

const TOKEN_ERRORS = {
  invalidClient: 'The OAuth client was not found.',
  invalidGrant: 'Token has been expired or revoked.',
};

/**
 * Google Ads REST API as the connector meets it: OAuth access tokens (refresh at /token with rotating refresh
 * tokens), `developer-token` and `login-customer-id` headers, `customers:listAccessibleCustomers`,
 * `customers/{cid}/googleAds:search` with GAQL and pageToken paging (pageSize refused: removed in v17), the four
 * `:mutate` endpoints applied to the state, and 429 RESOURCE_EXHAUSTED with retryDelay in the body.
 */
export function createGoogleAdsApp(
  sim: Omit<GoogleAdsSimulator, keyof RunningServer>,
  options: GoogleAdsSimulatorOptions,
): Hono {
  const app = new Hono();
  const rowsPerPage = options.rowsPerPage ?? 10_000;
  const tokens = new RotatingTokens(sim, options, {
    defaultTtlMs: 3_600_000,
    accessTokenPrefix: 'ya29.sim-',
    refreshTokenPrefix: '1//sim-',
    permanentAccessTokens: [sim.accessToken],
  });
  const customers = () => sim.data.customers.map((c) => String(c.id));

  app.use(
    '*',
    sim.faults.middleware((status) =>
      status === 429 ? resourceExhausted() : adsError(status, 'INTERNAL', 'Internal error encountered.', []),
    ),
  );

  // https://developers.google.com/identity/protocols/oauth2/web-server#offline
  app.post(
    '/token',
    tokens.grant(TOKEN_ERRORS, (issued) => ({
      access_token: issued.accessToken,
      expires_in: issued.expiresIn,
      refresh_token: issued.refreshToken,
      scope: 'https://www.googleapis.com/auth/adwords',
      token_type: 'Bearer',
    })),
  );

  app.use(`/${API_VERSION}/*`, async (c, next) => {
    if (!tokens.accepts(bearerToken(c.req.header('authorization')))) {
      const message = 'Request had invalid authentication credentials. Expected OAuth 2 access token.';
      return c.json(unauthenticated({ authenticationError: 'OAUTH_TOKEN_INVALID' }, message), 401);
    }
    const developerToken = c.req.header('developer-token');
    if (!developerToken) {
      return c.json(
        unauthenticated(
          { authenticationError: 'DEVELOPER_TOKEN_PARAMETER_MISSING' },
          'The developer token is missing.',
        ),
        401,
      );
    }
    if (developerToken !== sim.developerToken) {
      return c.json(
        unauthenticated({ authenticationError: 'DEVELOPER_TOKEN_INVALID' }, 'The developer token is not valid.'),
        401,
      );
    }
    await next();
  });

  /** The customer of the path, checked against login-customer-id (the manager, or the customer itself). */
  const customerOf = (c: Context, cid: string): Response | null => {
    const login = c.req.header('login-customer-id');
    if (!customers().includes(cid) || (login !== undefined && login !== sim.data.managerId && login !== cid)) {
      return c.json(
        denied("The caller does not have permission. User doesn't have permission to access customer."),
        403,
      );
    }
    return null;
  };

  // Routed by hand: Hono reads `:name` in a pattern as a parameter, and Google's custom methods are `noun:verb`.
  app.get(`/${API_VERSION}/*`, (c) => {
    if (new URL(c.req.url).pathname !== `/${API_VERSION}/customers:listAccessibleCustomers`) {
      return c.json(adsError(404, 'NOT_FOUND', 'The requested URL was not found on this server.', []), 404);
    }
    return c.json({ resourceNames: customers().map((id) => `customers/${id}`) });
  });

  app.post(`/${API_VERSION}/customers/*`, async (c) => {
    const route =
      /^\/v\d+\/customers\/([^/]+)\/(googleAds:search|(campaigns|adGroups|campaignLabels|adGroupLabels|labels):mutate)$/.exec(
        new URL(c.req.url).pathname,
      );
    if (!route) return c.json(adsError(404, 'NOT_FOUND', 'The requested URL was not found on this server.', []), 404);
    const cid = decodeURIComponent(route[1]!);
    const refused = customerOf(c, cid);
    if (refused) return refused;
    const body = (await c.req.json().catch(() => null)) as Record<string, unknown> | null;
    if (!body) return c.json(invalid({ requestError: 'BAD_RESOURCE_ID' }, 'Invalid JSON payload received.'), 400);
    if (route[3]) {
      try {
        return c.json(applyMutate(sim.data, cid, route[3] as 'campaigns', body));
      } catch (error) {
        if (!(error instanceof MutateError)) throw error;
        return c.json(adsError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', error.failures), 400);
      }
    }
    sim.searches.push({ customerId: cid, body });
    // pageSize was removed in v17: every page holds up to 10,000 rows.
    if (body.pageSize !== undefined) {
      return c.json(
        invalid({ requestError: 'PAGE_SIZE_NOT_SUPPORTED' }, 'Setting the page size is not supported.'),
        400,
      );
    }
    if (typeof body.query !== 'string' || body.query.trim() === '') {
      return c.json(invalid({ queryError: 'QUERY_NOT_SET' }, 'The query is empty.'), 400);
    }
    let rows: Record<string, unknown>[];
    try {
      rows = runQuery(sim.data, cid, parseGaql(body.query));
    } catch (error) {
      if (!(error instanceof GaqlError)) throw error;
      return c.json(invalid({ queryError: error.code }, error.message), 400);
    }
    const hash = createHash('sha1').update(`${cid}|${body.query}`).digest('hex').slice(0, 16);
    let offset = 0;
    if (body.pageToken !== undefined) {
      const parsed = typeof body.pageToken === 'string' ? readToken(body.pageToken, hash) : null;
      if (parsed === null)
        return c.json(invalid({ requestError: 'INVALID_PAGE_TOKEN' }, 'Page token is invalid.'), 400);
      offset = parsed;
    }
    const page = rows.slice(offset, offset + rowsPerPage);
    const more = offset + rowsPerPage < rows.length;
    return c.json({
      results: page,
      ...(more ? { nextPageToken: pageToken(hash, offset + rowsPerPage) } : {}),
      fieldMask: parseGaql(body.query)
        .fields.map((f) => f.replace(/_([a-z0-9])/g, (_, ch: string) => ch.toUpperCase()))
        .join(','),
      queryResourceConsumption: String(page.length),
    });
  });

  app.notFound((c) => c.json(adsError(404, 'NOT_FOUND', 'The requested URL was not found on this server.', []), 404));
  return app;
}
