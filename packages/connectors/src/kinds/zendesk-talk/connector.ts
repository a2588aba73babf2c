import { basicAuth, bearerAuth, credentialsOAuth } from '../../core/auth.ts';
import { type ContextOf, defineConnector, type EntityOperations, type ListPage } from '../../core/define-connector.ts';
import { UpstreamError } from '../../core/errors.ts';
import { zendeskTalkCatalog } from './catalog.ts';
import { readExport } from './mapping.ts';

/*
 * Zendesk Talk API: https://developer.zendesk.com/api-reference/voice/talk-api/
 * Base https://{subdomain}.zendesk.com/api/v2/channels/voice (the core fills {subdomain} from the validated config).
 */

type ZendeskContext = ContextOf<typeof zendeskTalkCatalog>;

function singleObject(body: unknown, key: string): Record<string, unknown> {
  const value = (body as Record<string, unknown> | undefined)?.[key];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UpstreamError('upstream_error', `the upstream answer has no object at '${key}'`, null, null);
  }
  return value as Record<string, unknown>;
}

/**
 * Single-object statistics (stats/agents_overview, stats/account_overview, stats/current_queue_activity): one
 * record, stamped with `current_timestamp` (unix seconds of the read) as the catalog's record key, as the vendor's
 * reference replication does. Not paginated: no Meta.
 */
function snapshotEntity(path: string, key: string): EntityOperations<ZendeskContext> {
  const list = async (ctx: ZendeskContext): Promise<ListPage> => {
    const response = await ctx.http.send({ path, signal: ctx.signal });
    const body: unknown = await response.json().catch(() => undefined);
    // The snapshot's time is the upstream's own clock (Date header), falling back to ours.
    const served = Date.parse(response.headers.get('date') ?? '');
    const currentTimestamp = Math.floor((Number.isNaN(served) ? Date.now() : served) / 1000);
    return { records: [{ ...singleObject(body, key), current_timestamp: currentTimestamp }], meta: {}, next: null };
  };
  return {
    list: (ctx) => list(ctx),
    read: async function* (ctx) {
      yield { records: (await list(ctx)).records, checkpoint: null };
    },
  };
}

/**
 * Incremental exports (calls, legs), declared in the catalog: `start_time` (unix seconds, inclusive) is required
 * upstream, so a caller who gives none starts at the beginning (0). Replication drops the repeats of each page's
 * last second (readExport), which is Zendesk's own.
 */
function exportEntity(name: 'calls' | 'call_legs'): EntityOperations<ZendeskContext> {
  const spec = zendeskTalkCatalog.entities[name]!.upstream!;
  return {
    hooks: { query: (query) => ({ start_time: 0, ...query }) },
    read: (ctx, request) => readExport(ctx, spec, request.since, request.resume),
  };
}

export const zendeskTalkConnector = defineConnector({
  catalog: zendeskTalkCatalog,
  defaultBaseUrl: 'https://{subdomain}.zendesk.com/api/v2/channels/voice',
  auth: ({ credentials, config, settings }) => {
    // API token: Basic `{email}/token:{api_token}` (https://developer.zendesk.com/api-reference/introduction/security-and-auth/).
    if (!('access_token' in credentials)) return basicAuth(`${credentials.email}/token`, credentials.api_token);
    if (!credentials.refresh_token || !credentials.client_id) return bearerAuth(credentials.access_token);
    // Zendesk OAuth tokens with a refresh token rotate it on every refresh: the new pair is written back
    // (https://developer.zendesk.com/api-reference/ticketing/oauth/grant_type_tokens/#refresh-token-grant-type).
    return credentialsOAuth(credentials, settings, zendeskTalkCatalog.auth!, config);
  },
  // The API token is Basic `{email}/token:{api_token}`: said as data, the username is `{email}/token`.
  authAsData: [
    { type: 'basic' },
    { type: 'bearer' },
    {
      type: 'oauth2',
      grant: 'refresh_token',
      token_url: zendeskTalkCatalog.auth!.tokenUrl,
      client_auth: zendeskTalkCatalog.auth!.clientAuth,
    },
  ],
  // The offset-paged settings lists and the exports' lists are declared in the catalog; what is Zendesk's own is below.
  entities: {
    agents_overview: snapshotEntity('stats/agents_overview', 'agents_overview'),
    account_overview: snapshotEntity('stats/account_overview', 'account_overview'),
    current_queue_activity: snapshotEntity('stats/current_queue_activity', 'current_queue_activity'),
    calls: exportEntity('calls'),
    call_legs: exportEntity('call_legs'),
  },
});
