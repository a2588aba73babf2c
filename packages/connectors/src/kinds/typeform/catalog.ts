import { z } from 'zod';
import {
  defineCatalog,
  type EntityCatalog,
  fieldCursor,
  REFRESHING_CREDENTIALS,
  type UpstreamSpec,
} from '../../core/catalog.ts';
import { isoDateTime, noConfig, pathId, startDateReplicationConfig } from '../../core/common-schemas.ts';
import { type FieldMap, notNull, omit, t } from '../../core/field-spec.ts';
import { typeformWebhooks } from './webhooks.ts';

/*
 * Forms = Typeform API (docs/api.md), base https://api.typeform.com. Sources: the specification's "Forms connector",
 * the vendor's API reference, Typeform's API reference (Create API: forms, workspaces, images, themes; Responses
 * API; Webhooks API).
 *
 * The specification: forms records "declare every field nullable except the identifier".
 * Timestamps typed as strings in the specification are `datetime` here so search compares them as instants.
 */

// The specification: Meta total_items, page_count (integers) on the paged lists (forms, responses, workspaces, themes).
const meta: FieldMap = { total_items: t.integer(), page_count: t.integer() };

/** Page-numbered lists: `page` from 1; Typeform's page_size maximum is 200 (forms, workspaces, themes). */
const pageParams = z.strictObject({
  page: z.int().min(1).optional(),
  page_size: z.int().min(1).max(200).optional(),
});

/** A Typeform form id (the path segment of /forms/{form_id}). */
const formId = pathId;

/**
 * forms, workspaces, themes: `?page&page_size` → `{total_items, page_count, items}`; the next page exists while
 * `page < page_count` and the page was not empty. Replication reads Typeform's largest page, 200.
 */
const pagedList = (path: string): UpstreamSpec => ({
  path,
  records: 'items',
  paging: { type: 'page_number', param: 'page', totalPagesAt: 'page_count', stopOnEmpty: true },
  meta: { total_items: 'total_items', page_count: 'page_count' },
  read: { params: { page: 1, page_size: 200 } },
});

/** Child entities are read per form: `params.form_id = form.id`. */
const perForm = { entity: 'forms', param: 'form_id', from: 'id' } as const;

const formRecord: FieldMap = {
  id: notNull(t.string()),
  type: t.string(),
  title: t.string(),
  created_at: t.datetime(),
  last_updated_at: t.datetime(),
  published_at: t.datetime(),
  workspace: t.object(),
  theme: t.object(),
  settings: t.object(),
  self: t.object(),
  _links: t.object(),
  welcome_screens: t.array(),
  thankyou_screens: t.array(),
  logic: t.array(),
  fields: t.array(),
};

const forms: EntityCatalog = {
  name: 'forms',
  recordKey: 'id',
  upstream: { ...pagedList('forms'), get: { path: 'forms/{form_id}' } },
  record: formRecord,
  meta,
  searchable: omit(formRecord, ['self']),
  actions: { list: pageParams, get: z.strictObject({ form_id: formId }) },
  // GET /forms has no time filter, and forms get deleted: full refresh.
  sync: { mode: 'full_refresh' },
};

const responseRecord: FieldMap = {
  response_id: notNull(t.string()),
  response_type: t.string(),
  landed_at: t.datetime(),
  landing_id: t.string(),
  submitted_at: t.datetime(),
  token: t.string(),
  // Not part of Typeform's response object: the connector adds the form id from the request.
  form_id: t.string(),
  metadata: t.object(),
  hidden: t.object(),
  calculated: t.object(),
  variables: t.array(),
  answers: t.array(),
};

/** `sort`: `{field},{asc|desc}`, e.g. `submitted_at,asc` (Typeform sorts by submitted_at or staged_at). */
const responseSort = z
  .string()
  .regex(/^[a-z_]+,(asc|desc)$/, 'must be a field name and a direction separated by a comma, e.g. submitted_at,asc');

const responses: EntityCatalog = {
  name: 'responses',
  // Typeform identifies a response by its token, which the upstream also returns as response_id.
  recordKey: 'response_id',
  // https://www.typeform.com/developers/responses/reference/retrieve-responses/: `{total_items, page_count, items}`;
  // the next page continues from the last response's token (`after`; the connector turns it into `before` for a
  // descending read), until an empty page or page_count ≤ 1. Replication: since + `sort=submitted_at,asc` first, then
  // `after` (the pattern of Airbyte's source-typeform manifest), 1000 responses a page (Typeform's largest).
  upstream: {
    path: 'forms/{form_id}/responses',
    records: 'items',
    paging: { type: 'last_record', param: 'after', field: 'token', pagesAt: 'page_count' },
    meta: { total_items: 'total_items', page_count: 'page_count' },
    read: { params: { page_size: 1000, sort: 'submitted_at,asc' }, since: { param: 'since', format: 'seconds' } },
  },
  record: responseRecord,
  meta,
  searchable: responseRecord,
  actions: {
    list: z.strictObject({
      form_id: formId,
      // Typeform: page_size at most 1000 for responses.
      page_size: z.int().min(1).max(1000).optional(),
      since: isoDateTime.optional(),
      until: isoDateTime.optional(),
      after: z.string().min(1).optional(),
      before: z.string().min(1).optional(),
      sort: responseSort.optional(),
      completed: z.boolean().optional(),
      query: z.string().min(1).optional(),
      // Comma-separated response ids (Typeform's retrieve-responses reference); webhooks re-read one response with it.
      included_response_ids: z.string().min(1).max(4000).optional(),
    }),
  },
  // Typeform filters responses by submission time (since/until) and sorts by submitted_at.
  sync: { mode: 'incremental', cursorField: 'submitted_at', parent: perForm },
  // A submitted response does not change, but responses can be deleted (DELETE /forms/{form_id}/responses,
  // Typeform Responses API), which no `since` read sees: the full pass removes them.
  changeCapture: fieldCursor(
    { seesEdits: true, seesDeletions: false },
    'Typeform Responses API (GET since/until on submitted_at; DELETE responses)',
  ),
};

const webhookRecord: FieldMap = {
  id: notNull(t.string()),
  form_id: t.string(),
  tag: t.string(),
  url: t.string(),
  created_at: t.datetime(),
  updated_at: t.datetime(),
  enabled: t.boolean(),
  verify_ssl: t.boolean(),
};

const webhooks: EntityCatalog = {
  name: 'webhooks',
  recordKey: 'id',
  upstream: {
    // One unpaged `{items}` per form (https://www.typeform.com/developers/webhooks/reference/retrieve-webhooks/).
    path: 'forms/{form_id}/webhooks',
    records: 'items',
    paging: { type: 'none' },
  },
  record: webhookRecord,
  // GET /forms/{form_id}/webhooks is not paginated: no Meta.
  searchable: webhookRecord,
  actions: { list: z.strictObject({ form_id: formId }) },
  sync: { mode: 'full_refresh', parent: perForm },
};

const workspaceRecord: FieldMap = {
  id: notNull(t.string()),
  name: t.string(),
  account_id: t.string(),
  default: t.boolean(),
  shared: t.boolean(),
  forms: t.object(),
  self: t.object(),
};

const workspaces: EntityCatalog = {
  name: 'workspaces',
  recordKey: 'id',
  upstream: pagedList('workspaces'),
  record: workspaceRecord,
  meta,
  searchable: workspaceRecord,
  actions: { list: pageParams },
  sync: { mode: 'full_refresh' },
};

const imageRecord: FieldMap = {
  id: notNull(t.string()),
  file_name: t.string(),
  src: t.string(),
  media_type: t.string(),
  avg_color: t.string(),
  upload_source: t.string(),
  width: t.integer(),
  height: t.integer(),
  has_alpha: t.boolean(),
};

const images: EntityCatalog = {
  name: 'images',
  recordKey: 'id',
  upstream: {
    // A bare array, unpaged (https://www.typeform.com/developers/create/reference/retrieve-images-collection/).
    path: 'images',
    records: null,
    paging: { type: 'none' },
  },
  record: imageRecord,
  // GET /images answers a bare array: no Meta.
  searchable: omit(imageRecord, ['upload_source']),
  actions: { list: z.strictObject({}) },
  sync: { mode: 'full_refresh' },
};

const themeRecord: FieldMap = {
  id: notNull(t.string()),
  name: t.string(),
  visibility: t.string(),
  font: t.string(),
  rounded_corners: t.string(),
  created_at: t.datetime(),
  updated_at: t.datetime(),
  has_transparent_button: t.boolean(),
  colors: t.object(),
  background: t.object(),
  fields: t.object(),
  screens: t.object(),
};

const themes: EntityCatalog = {
  name: 'themes',
  recordKey: 'id',
  upstream: pagedList('themes'),
  record: themeRecord,
  meta,
  searchable: themeRecord,
  actions: { list: pageParams },
  sync: { mode: 'full_refresh' },
};

/*
 * Credentials (the specification: "not shown"; docs/api.md: the vendor's real auth). Typeform takes a bearer token, either a
 * personal access token or an OAuth access token. Two methods, strict objects with disjoint shapes, so any
 * credentials object matches at most one:
 * - personal access token: exactly {access_token};
 * - OAuth: {access_token, refresh_token, client_id, client_secret}, all four: refreshing (POST /oauth/token) needs
 *   the refresh token and the client's id and secret together. An OAuth access token without refresh material is
 *   used like a personal access token (the first method).
 */
export const typeformPersonalTokenCredentials = z.strictObject({ access_token: z.string().min(1) });

export const typeformOAuthCredentials = z.strictObject({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1),
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
});

const credentials = z.union([typeformPersonalTokenCredentials, typeformOAuthCredentials], {
  error:
    'credentials must be either a personal access token {access_token} or OAuth ' +
    '{access_token, refresh_token, client_id, client_secret}',
});

export const typeformCatalog = defineCatalog({
  connectorType: 'Typeform',
  copyVersion: {
    by: 'read_instant',
    why: 'Forms have `last_updated_at` to the second, responses only `submitted_at`; a deleted response has no version.',
    source: 'https://www.typeform.com/developers/responses/reference/retrieve-responses/',
  },
  rateLimit: {
    perSecond: 2,
    scope: 'per account: 2 requests per second',
    source: 'https://www.typeform.com/developers/get-started/',
  },
  purpose: 'forms',
  // https://www.typeform.com/developers/get-started/applications/ (#refresh-the-token): the client as form
  // fields; `offline` grants the refresh token.
  auth: {
    tokenUrl: 'https://api.typeform.com/oauth/token',
    clientAuth: 'form',
    consent: {
      authorizeUrl: 'https://api.typeform.com/oauth/authorize',
      scopes: [
        'offline',
        'accounts:read',
        'forms:read',
        'responses:read',
        'webhooks:read',
        'workspaces:read',
        'images:read',
        'themes:read',
      ],
      pkce: false,
      authorizeParams: {},
      credentials: REFRESHING_CREDENTIALS,
    },
  },
  webhooks: typeformWebhooks,
  credentials,
  replicationConfig: startDateReplicationConfig,
  config: noConfig,
  entities: { forms, responses, webhooks, workspaces, images, themes },
});
