import type { AuditTrailOptions } from './middleware/audit-trail.ts';
import { connectorActionOf, definitionActionOf, webhookEndpointActionOf } from './middleware/audit-trail.ts';
import type { RouteSet } from './openapi/route-kit.ts';
import { ROUTE_BASES } from './route-bases.ts';
import { auditRoutes } from './routes/audit.ts';
import { catalogRoutes } from './routes/catalog.ts';
import { connectorDefinitionRoutes } from './routes/connector-definitions/routes.ts';
import { changesRoutes } from './routes/connectors/changes.ts';
import { changesStreamRoutes } from './routes/connectors/changes-stream.ts';
import { createRoutes } from './routes/connectors/create.ts';
import { executeRoutes } from './routes/connectors/execute.ts';
import { connectorRoutes } from './routes/connectors/read-update-delete.ts';
import { sqlRoutes } from './routes/connectors/sql.ts';
import { webhookRoutes } from './routes/connectors/webhooks.ts';
import { healthRoutes } from './routes/health.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { oauthCallbackRoutes } from './routes/oauth-consent/callback.ts';
import { oauthInitiateRoutes } from './routes/oauth-consent/initiate.ts';
import { oauthTokenRoutes } from './routes/oauth-token.ts';
import { usageRoutes } from './routes/usage.ts';
import { webhookEndpointRoutes } from './routes/webhook-endpoints/routes.ts';

/**
 * Who may call a group's routes. `public`: anyone (what a route checks itself, such as a vendor's signature, is its
 * own). `bearer`: a token from POST /api/v1/oauth/token, then the rate limit, then usage metering and quotas, then
 * (when `auditActions` is set) the audit trail, in that order: a refused call did nothing and is counted, not audited.
 */
export type RouteAccess =
  | { readonly kind: 'public' }
  | { readonly kind: 'bearer'; readonly auditActions?: NonNullable<AuditTrailOptions['actionOf']> };

/** Routes mounted under one base behind the same middleware. */
export interface RouteGroup {
  readonly base: string;
  readonly access: RouteAccess;
  readonly sets: readonly RouteSet[];
}

const PUBLIC: RouteAccess = { kind: 'public' };

/**
 * Every documented route of the API, in mount order: app.ts mounts these groups (buildApp) and the OpenAPI document
 * is built from the same definitions (openapi/document.ts), so what is served and what is documented cannot drift.
 * The order matters where paths overlap: the public routes under the connectors' base (the OAuth callback, the
 * upstream webhooks) come before the bearer-token group, whose middleware would otherwise answer them first.
 */
export const ROUTE_TABLE: readonly RouteGroup[] = [
  { base: '', access: PUBLIC, sets: [healthRoutes, metricsRoutes] },
  { base: ROUTE_BASES.catalog, access: PUBLIC, sets: [catalogRoutes] },
  { base: ROUTE_BASES.token, access: PUBLIC, sets: [oauthTokenRoutes] },
  { base: ROUTE_BASES.oauthCallback, access: PUBLIC, sets: [oauthCallbackRoutes] },
  // Upstream vendors call it, authenticated by their signature (never a bearer token).
  { base: ROUTE_BASES.connectors, access: PUBLIC, sets: [webhookRoutes] },
  {
    base: ROUTE_BASES.connectors,
    access: { kind: 'bearer', auditActions: connectorActionOf },
    // oauth/initiate before the `/{connector_id}` routes.
    sets: [
      createRoutes,
      oauthInitiateRoutes,
      connectorRoutes,
      executeRoutes,
      changesRoutes,
      changesStreamRoutes,
      sqlRoutes,
    ],
  },
  // Read-only, so not themselves audited.
  { base: ROUTE_BASES.audit, access: { kind: 'bearer' }, sets: [auditRoutes] },
  { base: ROUTE_BASES.usage, access: { kind: 'bearer' }, sets: [usageRoutes] },
  {
    base: ROUTE_BASES.webhookEndpoints,
    access: { kind: 'bearer', auditActions: webhookEndpointActionOf },
    sets: [webhookEndpointRoutes],
  },
  {
    base: ROUTE_BASES.connectorDefinitions,
    access: { kind: 'bearer', auditActions: definitionActionOf },
    sets: [connectorDefinitionRoutes],
  },
];
