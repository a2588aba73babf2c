import { credentialsOAuth } from '../../core/auth.ts';
import { classifyWithWait, GOOGLE_RETRY_DELAY, waitInBodyMs } from '../../core/classify.ts';
import { defineConnector, type EntityOperations, type Params } from '../../core/define-connector.ts';
import { type AuthStrategy, pathOf } from '../../core/http-client.ts';
import { googleAdsCatalog } from './catalog.ts';
import { cutPage, decodePageToken, toRecord } from './mapping.ts';
import { ENTITY_QUERIES, type EntityQuery, listQuery } from './queries.ts';
import {
  accessibleCustomers,
  type GoogleAdsContext,
  type GoogleAdsCredentials,
  readEntity,
  search,
} from './replication.ts';

/**
 * The API version the connector speaks (https://developers.google.com/google-ads/api/docs/sunset-dates); each
 * version lives about a year, so the base is overridable (CONNECTOR_BASE_URL_GOOGLE_ADS) without a release.
 */
export const GOOGLE_ADS_BASE_URL = 'https://googleads.googleapis.com/v23';

/**
 * OAuth bearer token (refreshed with grant_type=refresh_token on a 401) plus the headers every Google Ads call
 * carries: `developer-token`, and `login-customer-id` when calls go through a manager account
 * (https://developers.google.com/google-ads/api/rest/auth). The developer token is a secret too: redacted from errors.
 */
function googleAdsAuth(credentials: GoogleAdsCredentials, bearer: AuthStrategy): AuthStrategy {
  return {
    async headers(signal) {
      return {
        ...(await bearer.headers(signal)),
        'developer-token': credentials.developer_token,
        ...(credentials.login_customer_id ? { 'login-customer-id': credentials.login_customer_id } : {}),
      };
    },
    refresh: (signal) => bearer.refresh?.(signal) ?? Promise.resolve(false),
    secrets: () => [...bearer.secrets(), credentials.developer_token],
  };
}

/**
 * list (GAQL report, client-side pageSize) and read of one entity. Not declared in the catalog (`upstream`), because
 * nothing here is a generic list: every entity is one GAQL query POSTed to googleAds:search with the page token in
 * the JSON body; the upstream's pages are fixed at 10,000 rows, so the connector cuts them to the catalog's pageSize
 * and hands out its own tokens (upstream token + offset, mapping.ts); and replication walks customers × day windows
 * (replication.ts).
 */
function reportEntity(spec: EntityQuery): EntityOperations<GoogleAdsContext> {
  return {
    list: async (ctx, params) => {
      const position = decodePageToken(params.pageToken as string | undefined);
      const query = typeof params.query === 'string' ? params.query : listQuery(spec);
      const body = await search(ctx, String(params.customer_id), query, position.upstream);
      const { rows, nextToken } = cutPage(body, position, params.pageSize as number | undefined);
      return {
        records: rows.map((row) => toRecord(row, spec.main, spec.byDate)),
        meta: { next_page_token: nextToken },
        next: nextToken ? { ...params, pageToken: nextToken } : null,
      };
    },
    read: (ctx, request) => readEntity(ctx, spec, request),
  };
}

/**
 * `customers/{cid}/<collection>:mutate` (https://developers.google.com/google-ads/api/rest/common/mutate). Updates
 * need an updateMask; when the caller gives none it is derived from the fields present in `update`
 * (camelCase REST paths: name, status, cpcBidMicros). Answers the upstream body, `{results: [{resourceName}]}`.
 */
function mutate(collection: string, kind: 'update' | 'create') {
  return (ctx: GoogleAdsContext, params: Params) => {
    const operations = (params.operations as Record<string, unknown>[]).map((operation) => {
      if (kind === 'create' || typeof operation.updateMask === 'string') return operation;
      const update = (operation.update ?? {}) as Record<string, unknown>;
      const mask = Object.keys(update).filter((k) => k !== 'resourceName' && update[k] !== undefined);
      return { ...operation, updateMask: mask.join(',') };
    });
    return ctx.http.json({
      method: 'POST',
      path: `${pathOf('customers', String(params.customer_id))}/${collection}:mutate`,
      json: { operations },
      signal: ctx.signal,
    });
  };
}

const entity = (name: string): EntityQuery => {
  const spec = ENTITY_QUERIES[name];
  if (!spec) throw new Error(`google-ads: no query for ${name}`);
  return spec;
};

export const googleAdsConnector = defineConnector({
  catalog: googleAdsCatalog,
  defaultBaseUrl: GOOGLE_ADS_BASE_URL,
  classify: classifyWithWait((_, excerpt) => waitInBodyMs(excerpt, GOOGLE_RETRY_DELAY)),
  auth: ({ credentials, settings }) => {
    return googleAdsAuth(
      credentials,
      // Google normally keeps the refresh token, but a new one is stored.
      credentialsOAuth(credentials, settings, googleAdsCatalog.auth!),
    );
  },
  entities: {
    accounts: reportEntity(entity('accounts')),
    campaigns: { ...reportEntity(entity('campaigns')), update: mutate('campaigns', 'update') },
    ad_groups: { ...reportEntity(entity('ad_groups')), update: mutate('adGroups', 'update') },
    ad_group_ads: reportEntity(entity('ad_group_ads')),
    campaign_labels: { ...reportEntity(entity('campaign_labels')), create: mutate('campaignLabels', 'create') },
    ad_group_labels: { ...reportEntity(entity('ad_group_labels')), create: mutate('adGroupLabels', 'create') },
    ad_group_ad_labels: reportEntity(entity('ad_group_ad_labels')),
    labels: { list: reportEntity(entity('labels')).list!, create: mutate('labels', 'create') },
    // One record: {resourceNames: ["customers/1234567890", ...]}; not paginated upstream.
    accessible_customers: {
      list: async (ctx) => ({ records: [await accessibleCustomers(ctx)], meta: {}, next: null }),
    },
  },
});
