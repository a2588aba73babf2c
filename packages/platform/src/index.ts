export { AccessTokens } from './access-tokens.ts';
export { type AuditedCall, type AuditIntent, AuditLog, redactForAudit } from './audit-log.ts';
export { changeEventId, changeEventView } from './customer-webhooks/change-event-view.ts';
export { createDeliverySender, type DeliverySender } from './customer-webhooks/delivery-sender.ts';
export { newEndpointSecret, signedHeaders } from './customer-webhooks/endpoint-secret.ts';
export { endpointUrlProblem } from './customer-webhooks/endpoint-url.ts';
export type { UpstreamOverrides } from './hosted-connectors.ts';
export { IndexStore, type WrittenChanges } from './index-store.ts';
export {
  credentialsFrom,
  OAUTH_PROVIDERS,
  type OAuthProvider,
  type OAuthProviderLookup,
  type OAuthProviderSpec,
  type OAuthProviders,
  oauthProviders,
} from './oauth-providers.ts';
export { connectPlatformServices, type PlatformServices } from './platform-services.ts';
export {
  currentRunId,
  type RecordWriter,
  type RefreshRecordDeps,
  type RefreshRecordOutcome,
  refreshRecord,
} from './refresh-record.ts';
export { recordKeyOf, searchDocument } from './search-documents.ts';
export {
  type LookupAnswer,
  lookupRequest,
  opensearchNodes,
  SearchAbandonedError,
  type SearchAnswer,
  SearchQueueFullError,
  searchRequest,
} from './search-transport.ts';
export { exitOnStartupFailure, startProcess } from './startup-failure.ts';
