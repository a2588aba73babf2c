import { bearerAuth } from '../../core/auth.ts';
import {
  type ConnectorContext,
  defineConnector,
  type EntityOperations,
  type Params,
} from '../../core/define-connector.ts';
import { pathOf } from '../../core/http-client.ts';
import { readByListing, recordsAt } from '../../core/paging.ts';
import { orbCatalog } from './catalog.ts';

type OrbContext = ConnectorContext<{ api_key: string }, Record<string, never>>;

interface OrbList {
  data: unknown;
  pagination_metadata?: { has_more?: boolean; next_cursor?: string | null };
}

/** Caller params → Orb query. Filters use Orb's bracket syntax: `created_at[gte]`, `status[]`. */
type QueryMapping = Readonly<Record<string, string>>;

// https://docs.withorb.com/api-reference/pagination: newest first, `cursor` = pagination_metadata.next_cursor.
function orbEntity(
  path: string,
  idParam: string,
  mapping: QueryMapping,
  createdFilter: string,
): EntityOperations<OrbContext> {
  const list = async (ctx: OrbContext, params: Params) => {
    const query: Record<string, string | number | undefined> = {};
    for (const [param, value] of Object.entries(params)) {
      if (value === undefined) continue;
      query[mapping[param] ?? param] = value as string | number;
    }
    const body = await ctx.http.json<OrbList>({ path, query, signal: ctx.signal });
    const nextCursor = body.pagination_metadata?.has_more ? (body.pagination_metadata.next_cursor ?? null) : null;
    return {
      records: recordsAt(body, 'data'),
      meta: { next_cursor: nextCursor },
      next: nextCursor ? { ...params, cursor: nextCursor } : null,
    };
  };
  return {
    list,
    get: (ctx, params) => ctx.http.json({ path: pathOf(path, String(params[idParam])), signal: ctx.signal }),
    read: (ctx, request) =>
      readByListing((p) => list(ctx, p), { limit: 100, [createdFilter]: request.since }, request.resume),
  };
}

const page = { limit: 'limit', cursor: 'cursor' } as const;

export const orbConnector = defineConnector({
  catalog: orbCatalog,
  defaultBaseUrl: 'https://api.withorb.com/v1',
  auth: ({ credentials }) => bearerAuth((credentials as { api_key: string }).api_key),
  entities: {
    customers: orbEntity('customers', 'customer_id', { ...page, created_at_gte: 'created_at[gte]' }, 'created_at_gte'),
    subscriptions: orbEntity(
      'subscriptions',
      'subscription_id',
      { ...page, created_at_gte: 'created_at[gte]' },
      'created_at_gte',
    ),
    plans: orbEntity('plans', 'plan_id', { ...page, created_at_gte: 'created_at[gte]' }, 'created_at_gte'),
    invoices: orbEntity(
      'invoices',
      'invoice_id',
      {
        ...page,
        created_at_gte: 'created_at[gte]',
        invoice_date_gt: 'invoice_date[gt]',
        invoice_date_gte: 'invoice_date[gte]',
        invoice_date_lt: 'invoice_date[lt]',
        invoice_date_lte: 'invoice_date[lte]',
        status: 'status[]',
      },
      'created_at_gte',
    ),
  },
});
