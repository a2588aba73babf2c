import { z } from 'zod';
import {
  defineCatalog,
  type EntityCatalog,
  entity,
  fieldCursor,
  REFRESHING_CREDENTIALS,
  type UpstreamSpec,
  unpaged,
} from '../../core/catalog.ts';
import { isoDateTime, noConfig, pathId, startDateReplicationConfig } from '../../core/common-schemas.ts';
import { type FieldMap, omit } from '../../core/field-spec.ts';
import { fields } from '../../core/fields.ts';
import { typeformWebhooks } from './webhooks.ts';

/*
 * Forms = Typeform API, base https://api.typeform.com. Sources: Typeform's API reference (Create API: forms, workspaces, images, themes; Responses
 * API; Webhooks API).
 *
 * Forms records declare every field nullable except the identifier.
 * Timestamps the vendor sends as strings are `datetime` here so search compares them as instants.
 */

// The catalog: Meta total_items, page_count (integers) on the paged lists (forms, responses, workspaces, themes).
const meta: FieldMap = fields`total_items, page_count: integer`;

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

/**
 * A paged list (pagedList) that has no time filter upstream, read whole on every run (full refresh, which also removes
 * what was deleted), every record field searchable: workspaces and themes.
 */
const pagedWhole = (name: string, record: FieldMap): EntityCatalog =>
  entity({
    name,
    upstream: pagedList(name),
    record,
    meta,
    actions: { list: pageParams },
    sync: { mode: 'full_refresh' },
  });

/** Child entities are read per form: `params.form_id = form.id`. */
const perForm = { entity: 'forms', param: 'form_id', from: 'id' } as const;

const formRecord: FieldMap = fields`
  id!, type, title: string
  created_at, last_updated_at, published_at: datetime
  workspace, theme, settings, self, _links: object
  welcome_screens, thankyou_screens, logic, fields: array
`;

const forms = entity({
  name: 'forms',
  upstream: { ...pagedList('forms'), get: { path: 'forms/{form_id}' } },
  record: formRecord,
  meta,
  searchable: omit(formRecord, ['self']),
  actions: { list: pageParams, get: z.strictObject({ form_id: formId }) },
  // GET /forms has no time filter, and forms get deleted: full refresh.
  sync: { mode: 'full_refresh' },
});

const responseRecord: FieldMap = fields`
  response_id!, response_type: string
  landed_at: datetime
  landing_id: string
  submitted_at: datetime
  token: string
  // Not part of Typeform's response object: the connector adds the form id from the request.
  form_id: string
  metadata, hidden, calculated: object
  variables, answers: array
`;

/** `sort`: `{field},{asc|desc}`, e.g. `submitted_at,asc` (Typeform sorts by submitted_at or staged_at). */
const responseSort = z
  .string()
  .regex(/^[a-z_]+,(asc|desc)$/, 'must be a field name and a direction separated by a comma, e.g. submitted_at,asc');

const responses = entity({
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
  // What respondents wrote and chose (every text inside the answers): searched by meaning (docs/search.md).
  embed: ['answers'],
  meta,
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
});

const webhookRecord: FieldMap = fields`
  id!, form_id, tag, url: string
  created_at, updated_at: datetime
  enabled, verify_ssl: boolean
`;

const webhooks = entity({
  name: 'webhooks',
  // One unpaged `{items}` per form (https://www.typeform.com/developers/webhooks/reference/retrieve-webhooks/).
  upstream: unpaged('forms/{form_id}/webhooks', 'items'),
  record: webhookRecord,
  // GET /forms/{form_id}/webhooks is not paginated: no Meta.
  searchable: webhookRecord,
  actions: { list: z.strictObject({ form_id: formId }) },
  sync: { mode: 'full_refresh', parent: perForm },
});

const workspaceRecord: FieldMap = fields`
  id!, name, account_id: string
  default, shared: boolean
  forms, self: object
`;

const workspaces = pagedWhole('workspaces', workspaceRecord);

const imageRecord: FieldMap = fields`
  id!, file_name, src, media_type, avg_color, upload_source: string
  width, height: integer
  has_alpha: boolean
`;

const images = entity({
  name: 'images',
  // A bare array, unpaged (https://www.typeform.com/developers/create/reference/retrieve-images-collection/).
  upstream: unpaged('images', null),
  record: imageRecord,
  // GET /images answers a bare array: no Meta.
  searchable: omit(imageRecord, ['upload_source']),
  actions: { list: z.strictObject({}) },
  sync: { mode: 'full_refresh' },
});

const themeRecord: FieldMap = fields`
  id!, name, visibility, font, rounded_corners: string
  created_at, updated_at: datetime
  has_transparent_button: boolean
  colors, background, fields, screens: object
`;

const themes = pagedWhole('themes', themeRecord);

/*
 * Credentials: the vendor's own auth (https://www.typeform.com/developers/get-started/). Typeform takes a bearer token, either a
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
