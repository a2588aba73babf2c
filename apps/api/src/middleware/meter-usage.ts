import { QuotaExceededError, type Quotas, type UsageMeter, type UsageMetric } from '@conduit/usage';
import type { MiddlewareHandler } from 'hono';
import type { ApiEnv } from '../deps.ts';
import { connectorActionOf } from './audit-trail.ts';

export interface MeterUsageOptions {
  readonly usage: Pick<UsageMeter, 'add' | 'requestsToday'>;
  readonly quotas: Pick<Quotas, 'knownLimitsOf'>;
}

/**
 * Counts every API call of the caller's organization by route class (execute live, search, SQL, changes, other)
 * and refuses calls past the organization's requests_per_day (429 with Retry-After, the next UTC day). Counting is
 * a map update and the check reads memory (UsageMeter), so no call waits on either. Mount it after `authenticate` and the rate limit: a refused call did nothing and is not
 * counted.
 *
 * @example
 * connectors.use('*', signedIn, limited, meterUsage({ usage, quotas }));
 */
export function meterUsage(options: MeterUsageOptions): MiddlewareHandler<ApiEnv> {
  const { usage, quotas } = options;
  return async function meterUsage(c, next) {
    const { organizationId } = c.get('auth');
    const daily = quotas.knownLimitsOf(organizationId)?.requests_per_day;
    if (daily !== undefined) {
      const used = usage.requestsToday(organizationId);
      if (used >= daily) throw new QuotaExceededError('requests_per_day', daily, used);
    }
    const action = connectorActionOf(c.req.method, c.req.path);
    await next();
    // A connector the caller cannot see (404) is counted to the organization, not to that id.
    const connectorId = c.res.status === 404 ? undefined : connectorOf(c.req.path);
    // The live change feed (Server-Sent Events) is a changes call too, counted once when its stream opens.
    const routeAction = c.req.path.endsWith('/changes/stream') ? 'connector.changes' : action?.action;
    usage.add(organizationId, connectorId, metricOf(routeAction, c.get('audit')?.action));
  };
}

const CONNECTOR_ID = /^\/api\/v1\/integrations\/connectors\/([A-Za-z0-9-]{1,64})(?:\/|$)/;

/** The connector a call of the connectors group is about (any of its routes), undefined for the others. */
function connectorOf(path: string): string | undefined {
  const id = CONNECTOR_ID.exec(path)?.[1];
  return id === 'oauth' ? undefined : id;
}

/** The route class: an execute call is a search or a live action, as the route named it (beginAudit). */
function metricOf(routeAction: string | undefined, namedAction: string | undefined): UsageMetric {
  if (routeAction === 'execute') return namedAction === 'execute.search' ? 'api_search' : 'api_execute';
  if (routeAction === 'connector.sql') return 'api_sql';
  if (routeAction === 'connector.changes') return 'api_changes';
  return 'api_other';
}
