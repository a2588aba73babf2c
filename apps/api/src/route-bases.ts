import { CALLBACK_PATH } from '@conduit/oauth-consent';

/**
 * Where each group of routes is mounted: app.ts mounts the groups here and the OpenAPI document (openapi/document.ts)
 * prefixes their definitions with the same bases. The OAuth callback's path is the consent flow's own (it is also
 * the redirect URI registered with each provider).
 */
export const ROUTE_BASES = {
  token: '/api/v1/oauth/token',
  catalog: '/api/v1/catalog',
  connectors: '/api/v1/integrations/connectors',
  oauthCallback: CALLBACK_PATH,
  webhookEndpoints: '/api/v1/webhook-endpoints',
  audit: '/api/v1/audit',
  connectorDefinitions: '/api/v1/connector-definitions',
} as const;

/** The group a path belongs to (`connectors`, `audit`, ...), a bounded metric label; `other` outside the groups. */
export function routeGroupOf(path: string): string {
  for (const [group, base] of Object.entries(ROUTE_BASES)) {
    if (path === base || path.startsWith(`${base}/`))
      return group.replaceAll(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  }
  return 'other';
}
