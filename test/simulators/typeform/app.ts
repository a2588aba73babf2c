import { randomUUID } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { bearerToken } from '../kit/auth-header.ts';
import type { FaultInjector } from '../kit/faults.ts';
import { refreshTokenGrant } from '../kit/oauth-refresh.ts';
import { withFound } from '../kit/routes.ts';
import type { TypeformData, TypeformRecord } from './data.ts';
import { queryResponses } from './responses.ts';

export interface TypeformAppState {
  readonly data: TypeformData;
  readonly faults: FaultInjector;
  readonly personalToken: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Valid OAuth access tokens. */
  readonly accessTokens: Set<string>;
  /** The current (unused) OAuth refresh tokens; presenting one rotates it out. */
  readonly refreshTokens: Set<string>;
  /** Refresh calls received, for tests. */
  readonly refreshes: string[];
  /** When set, more than this many requests in one second answer 429 (Typeform: 2 req/s per account). */
  readonly requestsPerSecond?: number | undefined;
}

const MAX_PAGE_SIZE = 200;
const TOKEN_ERRORS = { invalidClient: 'client authentication failed', invalidGrant: 'invalid refresh token' };

/** Typeform error bodies: `{code, description}` (https://www.typeform.com/developers/get-started/common-errors/). */
export function typeformError(code: string, description: string) {
  return { code, description };
}

function paged(c: Context, rows: readonly TypeformRecord[], summary: (r: TypeformRecord) => unknown = (r) => r) {
  const query = new URL(c.req.url).searchParams;
  const page = Number(query.get('page') ?? 1);
  const pageSize = Number(query.get('page_size') ?? 10);
  if (!Number.isInteger(page) || page < 1 || !Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    return c.json(
      typeformError('VALIDATION_ERROR', `page must be ≥ 1 and page_size between 1 and ${MAX_PAGE_SIZE}`),
      400,
    );
  }
  return c.json({
    total_items: rows.length,
    page_count: Math.ceil(rows.length / pageSize),
    items: rows.slice((page - 1) * pageSize, page * pageSize).map(summary),
  });
}

/** The form summary GET /forms lists; the full definition (fields, logic, screens) only comes from GET /forms/{id}. */
function formSummary(form: TypeformRecord) {
  const { id, type, title, last_updated_at, created_at, settings, self, theme, _links } = form;
  const { is_public, is_trial } = settings as { is_public: boolean; is_trial: boolean };
  return { id, type, title, last_updated_at, created_at, settings: { is_public, is_trial }, self, theme, _links };
}

/**
 * Typeform Create/Responses/Webhooks/Images/Themes APIs as a connector meets them: a bearer personal token or
 * OAuth access token, refresh at POST /oauth/token with rotating refresh tokens, `{total_items, page_count, items}`
 * page paging, responses with tokens, webhooks unpaged, images as a bare array.
 */
export function createTypeformApp(state: TypeformAppState): Hono {
  const app = new Hono();
  const { data } = state;
  const window: number[] = [];
  app.use(
    '*',
    state.faults.middleware((status) =>
      status === 429
        ? typeformError('RATE_LIMIT_EXCEEDED', 'Too many requests')
        : typeformError('INTERNAL_SERVER_ERROR', 'Internal error'),
    ),
  );

  // https://www.typeform.com/developers/get-started/applications/#refresh-the-token
  app.post(
    '/oauth/token',
    refreshTokenGrant(state, TOKEN_ERRORS, (presented) => {
      if (!state.refreshTokens.delete(presented)) return undefined;
      state.refreshes.push(presented);
      const accessToken = `tfp-at-${randomUUID()}`;
      const refreshToken = `tfp-rt-${randomUUID()}`;
      state.accessTokens.add(accessToken);
      state.refreshTokens.add(refreshToken);
      return { access_token: accessToken, token_type: 'bearer', expires_in: 604_800, refresh_token: refreshToken };
    }),
  );

  app.use('*', async (c, next) => {
    const token = bearerToken(c.req.header('authorization'));
    if (!token)
      return c.json(
        typeformError('AUTHENTICATION_FAILED', 'Authentication credentials not found on the Request Headers'),
        401,
      );
    if (token !== state.personalToken && !state.accessTokens.has(token)) {
      return c.json(typeformError('AUTHENTICATION_FAILED', 'Authentication failed'), 401);
    }
    if (state.requestsPerSecond !== undefined) {
      const now = Date.now();
      while (window.length > 0 && window[0]! <= now - 1000) window.shift();
      if (window.length >= state.requestsPerSecond) {
        return c.json(typeformError('RATE_LIMIT_EXCEEDED', 'Too many requests'), 429, { 'retry-after': '1' });
      }
      window.push(now);
    }
    await next();
  });

  const formOf = (c: Context) => data.forms.find((f) => f.id === c.req.param('form_id'));
  const noForm = (c: Context) =>
    c.json(typeformError('FORM_NOT_FOUND', `Non existing form with uid ${c.req.param('form_id')}`), 404);
  /** A GET route about one form (`/forms/{form_id}` + `suffix`): FORM_NOT_FOUND when there is no such form. */
  const formRoute = (suffix: string, handler: (c: Context, form: TypeformRecord) => Response) =>
    app.get(`/forms/:form_id${suffix}`, withFound(formOf, noForm, handler));

  app.get('/forms', (c) => {
    const query = new URL(c.req.url).searchParams;
    const search = query.get('search')?.toLowerCase();
    const workspace = query.get('workspace_id');
    const rows = data.forms
      .filter((f) => !search || String(f.title).toLowerCase().includes(search))
      .filter((f) => !workspace || (f.workspace as { href: string }).href.endsWith(`/workspaces/${workspace}`))
      .sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)) || a.id.localeCompare(b.id));
    return paged(c, rows, formSummary);
  });
  formRoute('', (c, form) => c.json(form));
  formRoute('/responses', (c, form) => {
    const result = queryResponses(data.responses.get(form.id) ?? [], new URL(c.req.url).searchParams);
    return 'items' in result ? c.json(result) : c.json(typeformError('VALIDATION_ERROR', result.description), 400);
  });
  formRoute('/webhooks', (c, form) => c.json({ items: data.webhooks.get(form.id) ?? [] }));
  app.get('/workspaces', (c) => paged(c, data.workspaces));
  app.get('/themes', (c) => paged(c, data.themes));
  // GET /images answers a bare array (https://www.typeform.com/developers/create/reference/retrieve-images-collection/).
  app.get('/images', (c) => c.json(data.images));
  app.notFound((c) => c.json(typeformError('NOT_FOUND', 'Endpoint not found'), 404));
  return app;
}
