import { bearerAuth } from '../../core/auth.ts';
import {
  type ConnectorContext,
  defineConnector,
  type EntityOperations,
  type ListPage,
  type Params,
} from '../../core/define-connector.ts';
import { UpstreamError } from '../../core/errors.ts';
import { pathOf } from '../../core/http-client.ts';
import { readByListing, recordsAt } from '../../core/paging.ts';
import { incidentIoCatalog } from './catalog.ts';
import { neutralRecord } from './mapping.ts';

type IncidentIoContext = ConnectorContext<{ api_key: string }, Record<string, never>>;

interface Collection {
  /** Path of the list, e.g. `v2/incidents`; a record is `<path>/<id>`. */
  readonly path: string;
  /** Key of the record list in the list body (`incidents`), and of the record in a get body (`incident`). */
  readonly plural: string;
  readonly singular: string;
  /** The endpoint's maximum page_size; absent for unpaginated lists. */
  readonly maxPageSize?: number;
  /** Upstream filter applied with `request.since` during replication (incidents: `updated_at[gte]`). */
  readonly sinceFilter?: string;
}

interface PagedBody {
  readonly pagination_meta?: { after?: string | null; page_size?: number | null; total_record_count?: number };
}

/**
 * incident.io paging (https://api-docs.incident.io/#section/Making-requests/Pagination): `page_size` + `after`
 * in, `pagination_meta.after` out; the last page has no `after` (or null). Unpaginated lists return everything.
 */
async function listPage(ctx: IncidentIoContext, collection: Collection, params: Params): Promise<ListPage> {
  const query: Record<string, string | number | undefined> = {};
  if (collection.maxPageSize !== undefined) {
    if (params.page_size !== undefined) query.page_size = Number(params.page_size);
    if (typeof params.after === 'string') query.after = params.after;
    // Sent as the day (YYYY-MM-DD): incident.io's documented filter examples are dates; re-reading part of a day is
    // harmless (idempotent writes), missing one is not.
    if (collection.sinceFilter && typeof params.since === 'string') query[collection.sinceFilter] = dayOf(params.since);
  }
  const body = await ctx.http.json<PagedBody>({ path: collection.path, query, signal: ctx.signal });
  const records = recordsAt(body, collection.plural).map(neutralRecord);
  if (collection.maxPageSize === undefined) return { records, meta: {}, next: null };
  const after = body.pagination_meta?.after ?? null;
  // An empty page ends the walk even if an `after` came back, so a lenient upstream cannot loop us.
  const next = after && records.length > 0 ? { ...params, after } : null;
  return {
    records,
    meta: { after: next ? after : null, page_size: body.pagination_meta?.page_size ?? null },
    next,
  };
}

function entity(collection: Collection, gettable: boolean): EntityOperations<IncidentIoContext> {
  const operations: EntityOperations<IncidentIoContext> = {
    list: (ctx, params) => listPage(ctx, collection, params),
    // Replication reads whole pages at the endpoint's maximum; only incidents can be filtered by time upstream
    // (the catalog replicates everything else as full refresh, so `since` is deliberately not applied there).
    read: (ctx, request) =>
      readByListing(
        (params) => listPage(ctx, collection, params),
        {
          ...(collection.maxPageSize ? { page_size: collection.maxPageSize } : {}),
          ...(collection.sinceFilter ? { since: request.since } : {}),
        },
        request.resume,
      ),
  };
  if (gettable) {
    operations.get = async (ctx, params) => {
      const body = await ctx.http.json<Record<string, unknown>>({
        path: `${collection.path}/${pathOf(String(params.id))}`,
        signal: ctx.signal,
      });
      const record = body?.[collection.singular];
      if (typeof record !== 'object' || record === null) {
        throw new UpstreamError(
          'upstream_error',
          `the upstream answer has no '${collection.singular}' object`,
          200,
          null,
        );
      }
      return neutralRecord(record as Record<string, unknown>);
    };
  }
  return operations;
}

function dayOf(since: string): string {
  return /^\d{4}-\d{2}-\d{2}/.exec(since)?.[0] ?? new Date(since).toISOString().slice(0, 10);
}

const c = (
  path: string,
  plural: string,
  singular: string,
  extra: Partial<Pick<Collection, 'maxPageSize' | 'sinceFilter'>> = {},
): Collection => ({ path, plural, singular, ...extra });

export const incidentIoConnector = defineConnector({
  catalog: incidentIoCatalog,
  defaultBaseUrl: 'https://api.incident.io',
  auth: ({ credentials }) => bearerAuth((credentials as { api_key: string }).api_key),
  entities: {
    // GET /v2/incidents accepts `updated_at[gte]` (https://api-docs.incident.io/tag/Incidents-V2#operation/Incidents%20V2_List).
    incidents: entity(
      c('v2/incidents', 'incidents', 'incident', { maxPageSize: 250, sinceFilter: 'updated_at[gte]' }),
      true,
    ),
    alerts: entity(c('v2/alerts', 'alerts', 'alert', { maxPageSize: 50 }), true),
    escalations: entity(c('v2/escalations', 'escalations', 'escalation', { maxPageSize: 50 }), true),
    users: entity(c('v2/users', 'users', 'user', { maxPageSize: 250 }), true),
    incident_updates: entity(
      c('v2/incident_updates', 'incident_updates', 'incident_update', { maxPageSize: 250 }),
      false,
    ),
    incident_roles: entity(c('v2/incident_roles', 'incident_roles', 'incident_role'), true),
    // Statuses and severities still live under /v1 (https://api-docs.incident.io/tag/Incident-Statuses-V1).
    incident_statuses: entity(c('v1/incident_statuses', 'incident_statuses', 'incident_status'), true),
    severities: entity(c('v1/severities', 'severities', 'severity'), true),
    incident_timestamps: entity(c('v2/incident_timestamps', 'incident_timestamps', 'incident_timestamp'), true),
    custom_fields: entity(c('v2/custom_fields', 'custom_fields', 'custom_field'), true),
    catalog_types: entity(c('v2/catalog_types', 'catalog_types', 'catalog_type'), true),
    schedules: entity(c('v2/schedules', 'schedules', 'schedule', { maxPageSize: 250 }), true),
  },
});
