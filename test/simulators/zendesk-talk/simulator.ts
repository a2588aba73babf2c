import { type Context, Hono } from 'hono';
import { basicCredentials, bearerToken } from '../kit/auth-header.ts';
import { FaultInjector } from '../kit/faults.ts';
import { kindOptions, type SimulatorHandle, type SimulatorOptions } from '../kit/fixture.ts';
import { listen, type RunningServer } from '../kit/server.ts';
import type { SimulatedWebhooks } from '../kit/webhooks.ts';
import {
  generateZendeskTalkData,
  type ZendeskExportRecord,
  type ZendeskTalkData,
  type ZendeskTalkDataOptions,
} from './data.ts';
import { zendeskTalkWebhooks } from './webhooks.ts';

export interface ZendeskTalkSimulatorOptions extends ZendeskTalkDataOptions {
  port?: number;
  subdomain?: string;
  /** Records per incremental export page; Zendesk's is 1000, and the connector stops below that count. */
  exportPageSize?: number;
}

export interface ZendeskTalkSimulator extends RunningServer {
  readonly data: ZendeskTalkData;
  readonly faults: FaultInjector;
  readonly webhooks: SimulatedWebhooks;
  readonly subdomain: string;
  /** Base URL with the subdomain placeholder, as CONNECTOR_BASE_URL_ZENDESK_TALK. */
  readonly baseUrl: string;
  readonly tokenUrl: string;
  readonly email: string;
  readonly apiToken: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly initialAccessToken: string;
  readonly initialRefreshToken: string;
  /** Refresh tokens presented at the token endpoint, in order. */
  readonly refreshes: string[];
  /** current_timestamp (unix seconds, from the Date header) of every single-object stats answer, by resource. */
  readonly servedSnapshots: Record<string, number[]>;
  /** Makes the current access token invalid (as after its expiry), so the next call needs a refresh. */
  expireAccessToken(): void;
}

const VOICE = '/:subdomain/api/v2/channels/voice';
const MAX_PER_PAGE = 100;
const MAX_OFFSET = 10_000;

const error = (name: string, description: string) => ({ error: name, description });

/**
 * Zendesk Talk API as the connector meets it: per-account subdomain in the path, Basic `{email}/token:{api_token}`
 * or OAuth bearer tokens (rotating refresh tokens at /oauth/tokens), offset paging with full next_page URLs,
 * time-based incremental exports, single-object stats, and faults on demand.
 */
export async function startZendeskTalkSimulator(
  options: ZendeskTalkSimulatorOptions = {},
): Promise<ZendeskTalkSimulator> {
  const data = generateZendeskTalkData(options);
  const faults = new FaultInjector();
  const subdomain = options.subdomain ?? 'acme';
  const exportPageSize = options.exportPageSize ?? 1000;
  const email = 'agent@acme.example';
  const apiToken = 'zd-api-token-6b1f0c9e';
  const clientId = 'zd-client';
  const clientSecret = 'zd-client-secret-91aa';
  const initialAccessToken = 'zd-access-0';
  const initialRefreshToken = 'zd-refresh-0';
  let accessToken: string | null = initialAccessToken;
  let refreshToken = initialRefreshToken;
  let generation = 0;
  const refreshes: string[] = [];
  const servedSnapshots: Record<string, number[]> = {};

  const app = new Hono();
  app.use(
    '*',
    faults.middleware((status) =>
      status === 429 ? error('TooManyRequests', 'Rate limit exceeded') : error('InternalError', 'Server error'),
    ),
  );
  // An unknown subdomain is no Zendesk account at all.
  app.use('/:subdomain/*', async (c, next) => {
    if (c.req.param('subdomain') !== subdomain) return c.json(error('AccountNotFound', 'No such account'), 404);
    await next();
  });

  app.post('/:subdomain/oauth/tokens', async (c) => {
    const type = c.req.header('content-type') ?? '';
    const body = type.includes('json')
      ? ((await c.req.json()) as Record<string, string>)
      : Object.fromEntries(new URLSearchParams(await c.req.text()));
    if (body.grant_type !== 'refresh_token') return c.json({ error: 'unsupported_grant_type' }, 400);
    refreshes.push(String(body.refresh_token));
    if (body.client_id !== clientId || body.client_secret !== clientSecret) {
      return c.json({ error: 'invalid_client', error_description: 'Client authentication failed' }, 401);
    }
    if (body.refresh_token !== refreshToken) {
      return c.json({ error: 'invalid_grant', error_description: 'The refresh token is invalid' }, 400);
    }
    generation++;
    accessToken = `zd-access-${generation}`;
    refreshToken = `zd-refresh-${generation}`;
    return c.json({
      access_token: accessToken,
      refresh_token: refreshToken,
      token_type: 'bearer',
      scope: 'read',
      expires_in: 172800,
      refresh_token_expires_in: 7776000,
    });
  });

  app.use(`${VOICE}/*`, async (c, next) => {
    const auth = c.req.header('authorization');
    const basic = basicCredentials(auth);
    const byToken = basic?.user === `${email}/token` && basic.password === apiToken;
    if (!byToken && (accessToken === null || bearerToken(auth) !== accessToken)) {
      return c.json({ error: "Couldn't authenticate you" }, 401);
    }
    await next();
  });

  const offsetList = (path: string, key: string, rows: () => readonly unknown[]) =>
    app.get(`${VOICE}/${path}`, (c) => {
      const url = new URL(c.req.url);
      const perPage = Math.min(MAX_PER_PAGE, Math.max(1, Number(url.searchParams.get('per_page') ?? MAX_PER_PAGE)));
      const page = Math.max(1, Number(url.searchParams.get('page') ?? 1));
      if (!Number.isInteger(perPage) || !Number.isInteger(page)) {
        return c.json(error('InvalidPaginationParameter', 'page and per_page must be integers'), 400);
      }
      if ((page - 1) * perPage > MAX_OFFSET) {
        return c.json(error('InvalidPaginationParameter', `Offset pagination is limited to ${MAX_OFFSET}`), 400);
      }
      const all = rows();
      const pageUrl = (n: number) => `${url.origin}${url.pathname}?page=${n}&per_page=${perPage}`;
      return c.json({
        [key]: all.slice((page - 1) * perPage, page * perPage),
        next_page: page * perPage < all.length ? pageUrl(page + 1) : null,
        previous_page: page > 1 ? pageUrl(page - 1) : null,
        count: all.length,
      });
    });

  const show = (path: string, key: string, rows: () => readonly { id: number | string }[]) =>
    app.get(`${VOICE}/${path}/:id`, (c) => {
      const found = rows().find((r) => String(r.id) === c.req.param('id'));
      return found ? c.json({ [key]: found }) : c.json(error('RecordNotFound', 'Not found'), 404);
    });

  const settings: [string, string, string, keyof ZendeskTalkData][] = [
    ['phone_numbers', 'phone_numbers', 'phone_number', 'phone_numbers'],
    ['addresses', 'addresses', 'address', 'addresses'],
    ['greetings', 'greetings', 'greeting', 'greetings'],
    ['greeting_categories', 'greeting_categories', 'greeting_category', 'greeting_categories'],
    ['ivr', 'ivrs', 'ivr', 'ivrs'],
  ];
  for (const [path, listKey, getKey, name] of settings) {
    const rows = () => data[name] as { id: number | string }[];
    offsetList(path, listKey, rows);
    show(path, getKey, rows);
  }
  offsetList('stats/agents_activity', 'agents_activity', () => data.agents_activity);

  const snapshot = (name: 'agents_overview' | 'account_overview' | 'current_queue_activity') =>
    app.get(`${VOICE}/stats/${name}`, (c) => {
      const now = new Date();
      servedSnapshots[name] = [...(servedSnapshots[name] ?? []), Math.floor(now.getTime() / 1000)];
      c.header('date', now.toUTCString());
      return c.json({ [name]: data[name] });
    });
  snapshot('agents_overview');
  snapshot('account_overview');
  snapshot('current_queue_activity');

  // https://developer.zendesk.com/api-reference/voice/talk-api/incremental_exports/: start_time inclusive, ordered
  // by updated_at, end_time = the last record's second, next_page never null.
  const exportRoute = (path: string, key: string, rows: ZendeskExportRecord[]) =>
    app.get(`${VOICE}/stats/incremental/${path}`, (c: Context) => {
      const url = new URL(c.req.url);
      const raw = url.searchParams.get('start_time');
      const startTime = Number(raw);
      if (raw === null || !Number.isInteger(startTime) || startTime < 0) {
        return c.json(error('InvalidValue', 'start_time is required and must be a unix time'), 400);
      }
      const page = rows
        .filter((r) => Date.parse(r.updated_at) >= startTime * 1000)
        .sort((a, b) => a.updated_at.localeCompare(b.updated_at) || a.id - b.id)
        .slice(0, exportPageSize);
      const last = page.at(-1);
      const endTime = last ? Math.floor(Date.parse(last.updated_at) / 1000) : startTime;
      return c.json({
        [key]: page,
        next_page: `${url.origin}${url.pathname}?start_time=${endTime}`,
        count: page.length,
        end_time: endTime,
      });
    });
  exportRoute('calls', 'calls', data.calls);
  exportRoute('legs', 'legs', data.legs);

  app.notFound((c) => c.json(error('InvalidEndpoint', 'Not found'), 404));

  const server = await listen(app, options.port ?? 0);
  return {
    ...server,
    data,
    faults,
    webhooks: zendeskTalkWebhooks(data),
    subdomain,
    baseUrl: `${server.url}/{subdomain}/api/v2/channels/voice`,
    tokenUrl: `${server.url}/{subdomain}/oauth/tokens`,
    email,
    apiToken,
    clientId,
    clientSecret,
    initialAccessToken,
    initialRefreshToken,
    refreshes,
    servedSnapshots,
    expireAccessToken: () => {
      accessToken = null;
    },
  };
}

/** The generic handle (kit/fixture.ts) over the Zendesk Talk simulator. */
export async function startZendeskTalk(options: SimulatorOptions = {}): Promise<SimulatorHandle> {
  const startDate = '2024-01-01T00:00:00Z';
  const sim = await startZendeskTalkSimulator({
    ...kindOptions(options, 'size'),
  });
  const { data } = sim;
  const since = (rows: ZendeskExportRecord[]) =>
    rows.filter((r) => Date.parse(r.updated_at) >= Date.parse(startDate)).map((r) => String(r.id));
  // The latest snapshot served: the one a replication read just before asking holds. Before any read, the
  // snapshot a read would take now: always exactly one key.
  const snapshotKeys = (name: string) => [String(sim.servedSnapshots[name]?.at(-1) ?? Math.floor(Date.now() / 1000))];
  const ids = (rows: readonly { id: number | string }[]) => rows.map((r) => String(r.id));
  return {
    ...sim,
    connectorType: 'Zendesk-Talk',
    credentials: { email: sim.email, api_token: sim.apiToken },
    badCredentials: { email: sim.email, api_token: 'zd-wrong-token-000' },
    config: { subdomain: sim.subdomain },
    replicationConfig: { start_date: startDate },
    examples: [
      { entity: 'phone_numbers', action: 'list', params: {} },
      { entity: 'phone_numbers', action: 'get', params: { phone_number_id: data.phone_numbers[0]!.id } },
      { entity: 'addresses', action: 'list', params: {} },
      { entity: 'addresses', action: 'get', params: { address_id: data.addresses[0]!.id } },
      { entity: 'greetings', action: 'list', params: {} },
      { entity: 'greetings', action: 'get', params: { greeting_id: String(data.greetings[0]!.id) } },
      { entity: 'greeting_categories', action: 'list', params: {} },
      {
        entity: 'greeting_categories',
        action: 'get',
        params: { greeting_category_id: data.greeting_categories[0]!.id },
      },
      { entity: 'ivrs', action: 'list', params: {} },
      { entity: 'ivrs', action: 'get', params: { ivr_id: data.ivrs[0]!.id } },
      { entity: 'agents_activity', action: 'list', params: {} },
      { entity: 'agents_overview', action: 'list', params: {} },
      { entity: 'account_overview', action: 'list', params: {} },
      { entity: 'current_queue_activity', action: 'list', params: {} },
      { entity: 'calls', action: 'list', params: { start_time: Date.parse(startDate) / 1000 } },
      { entity: 'call_legs', action: 'list', params: {} },
    ],
    expectedKeys: (entity) => {
      switch (entity) {
        case 'phone_numbers':
        case 'addresses':
        case 'greetings':
        case 'greeting_categories':
        case 'ivrs':
          return ids(data[entity]);
        case 'agents_activity':
          return data.agents_activity.map((a) => String(a.agent_id));
        case 'agents_overview':
        case 'account_overview':
        case 'current_queue_activity':
          // The connector keys a snapshot by the upstream's Date header: the seconds this simulator served.
          return snapshotKeys(entity);
        case 'calls':
          return since(data.calls);
        case 'call_legs':
          return since(data.legs);
        default:
          throw new Error(`unknown entity ${entity}`);
      }
    },
  };
}
