import { connectorSettingsShape } from '@conduit/connectors';
import { SYNC_STATUSES } from '@conduit/db';
import { AggResultSchema, SearchTotalSchema } from '@conduit/search-dsl';
import { z } from 'zod';

/** Response shapes, as zod: the OpenAPI document and the documentation test both derive from these. */
export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.int(),
    detail: z.string(),
    code: z.string(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    upstream: z.object({ status: z.int().nullable(), body: z.string().nullable() }).optional(),
    quota: z
      .object({ name: z.string(), limit: z.int(), used: z.int() })
      .optional()
      .describe('quota_exceeded: the quota, its limit and what is used'),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details' });

export const TokenResponseSchema = z
  .object({ access_token: z.string(), token_type: z.literal('Bearer'), expires_in: z.int() })
  .meta({ id: 'TokenResponse' });

export const EntityStatusSchema = z.object({
  status: z.enum(SYNC_STATUSES),
  running: z.boolean(),
  last_success_at: z.string().nullable(),
  last_full_sync_at: z.string().nullable(),
  record_count: z.int(),
  error: z.string().nullable(),
});

export const ConnectorSchema = z
  .object({
    connector_id: z.string(),
    ...connectorSettingsShape,
    created_at: z.string(),
    updated_at: z.string(),
    /** docs/api.md: where the upstream sends its webhooks (null for kinds without webhooks). */
    webhook_url: z.string().nullable(),
    webhooks: z.enum(['configured', 'not_configured', 'unsupported']),
    credentials_status: z.enum(['ok', 'rejected']),
    credentials_error: z.string().nullable(),
    entities: z.record(z.string(), EntityStatusSchema),
    rate_budget: z
      .object({
        limit_per_s: z.number().describe('requests per second the connector may send upstream'),
        limit_source: z.enum(['documented', 'learnt']),
        used_per_s: z.number().describe('requests sent in the last whole second, by every process'),
        paused_until: z.string().nullable().describe('set while an upstream 429 pauses every call of the connector'),
      })
      .optional()
      .describe('GET of one connector: its upstream budget, shared by every API and worker process'),
  })
  .meta({ id: 'Connector' });

export const WebhookAcceptedSchema = z
  .object({ event_id: z.string(), status: z.enum(['queued', 'duplicate', 'ignored']) })
  .meta({ id: 'WebhookAccepted' });

export const ListResultSchema = z.object({
  data: z.array(z.record(z.string(), z.unknown())),
  meta: z.record(z.string(), z.unknown()),
});
/** docs/api.md, "Answers from memory". */
const AsOfSchema = z.string().meta({
  description:
    'A change-feed cursor of the connector: the answer reflects every change up to it; GET .../changes?after=<as_of> gives what came since',
});
const CacheSchema = z.enum(['hit', 'miss']).meta({
  description: '`hit`: kept in the API’s memory, no change since could alter it; `miss`: computed by the engine now',
});
export const SearchResultSchema = z.object({
  data: z.array(z.record(z.string(), z.unknown())),
  meta: z.object({
    has_more: z.boolean(),
    cursor: z.string().nullable(),
    took_ms: z.number().nullable(),
    total: SearchTotalSchema,
    aggregations: z.record(z.string(), AggResultSchema).optional(),
    synced_at: z.string().nullable(),
    as_of: AsOfSchema,
    cache: CacheSchema,
  }),
});
export const SqlResultSchema = z
  .object({
    data: z.array(z.record(z.string(), z.unknown())).meta({ description: 'Rows, keyed by column name' }),
    meta: z.object({
      columns: z.array(
        z.object({
          name: z.string(),
          type: z.string(),
          approximate: z
            .object({ precision_threshold: z.number() })
            .optional()
            .meta({ description: 'COUNT(DISTINCT): an estimate, close to exact below precision_threshold values' }),
        }),
      ),
      has_more: z.boolean(),
      cursor: z.string().nullable(),
      took_ms: z.number().nullable(),
      synced_at: z.string().nullable(),
      as_of: AsOfSchema,
      cache: CacheSchema,
      total: SearchTotalSchema.optional(),
      partial: z
        .literal(true)
        .optional()
        .meta({ description: 'The page stopped at the request budget before it was full; continue with cursor' }),
    }),
  })
  .meta({ id: 'SqlResult' });

export const ExecuteResultSchema = z
  .union([SearchResultSchema, ListResultSchema, z.object({ data: z.unknown() })])
  .meta({ id: 'ExecuteResult' });

export const SyncAcceptedSchema = z.object({ connector_id: z.string(), entities: z.array(z.string()) });

export const OAuthInitiateResponseSchema = z
  .object({ consent_url: z.string(), state: z.string(), expires_at: z.string() })
  .meta({ id: 'OAuthInitiateResponse' });
