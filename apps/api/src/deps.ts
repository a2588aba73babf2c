import type { PlatformEnv } from '@conduit/config';
import type { ClientsRepository } from '@conduit/db';
import type { OAuthDeps } from '@conduit/oauth-consent';
import type { Logger } from '@conduit/observability';
import type { CoreServices, PlatformServices } from '@conduit/platform';
import type { AccessTokens } from '@conduit/trusted-calls';
import type { AuditDetails } from './middleware/audit-trail.ts';
import type { ClientAccessCache } from './services/client-access.ts';
import type { ConnectorCache } from './services/connector-cache.ts';
import type { IdempotentExecutor } from './services/idempotent-execute.ts';
import type { SearchService } from './services/search-service.ts';

/** Everything the API needs, built in main.ts (or a test) and passed to buildApp. */
export interface ApiDeps
  extends CoreServices,
    Pick<
      PlatformServices,
      // webhookQueue: accepted upstream webhooks, deduplicated by event id (docs/api.md).
      | 'webhookQueue'
      // audit: the trail's writer (every audited call awaits it before answering); auditEntries: GET /api/v1/audit.
      | 'audit'
      | 'auditEntries'
      // budgets: the upstream budget per connector (rate_budget on GET .../{id}).
      | 'budgets'
      // copySearch: searches and lookups over the copy (the search service's connection to the engine).
      | 'copySearch'
      // usageRows: GET /api/v1/usage.
      | 'usageRows'
    > {
  readonly env: PlatformEnv;
  readonly logger: Logger;
  /** Connector rows for the search hot path; PATCH and DELETE must invalidate (see ConnectorCache). */
  readonly connectorCache: ConnectorCache;
  readonly clients: ClientsRepository;
  /** The current token generation and grants of each client (revocation); see ClientAccessCache. */
  readonly clientAccess: ClientAccessCache;
  readonly tokens: AccessTokens;
  readonly search: SearchService;
  /** Idempotency-Key on execute writes: claims, replays and kept answers in Postgres. */
  readonly idempotency: IdempotentExecutor;
  /** The OAuth consent flow's settings (providers from OAUTH_* variables, state store, callback URL). */
  readonly oauth?: OAuthDeps;
  /** Readiness probes by name (postgres, redis, opensearch). */
  readonly probes: Readonly<Record<string, () => Promise<void>>>;
}

export interface AuthContext {
  readonly clientId: string;
  readonly organizationId: string;
}

export type ApiEnv = {
  Variables: {
    requestId: string;
    auth: AuthContext;
    logger: Logger;
    audit?: AuditDetails | undefined;
    /** Set by the audit trail: starts writing the call's intent (beginAudit). */
    auditBegin?: (() => void) | undefined;
    /** POST /mcp: the JSON-RPC message, parsed once (mcpMessage). */
    mcpMessage?: unknown;
  };
};
