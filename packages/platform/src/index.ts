export { type AccessTokenClaims, AccessTokens } from './access-tokens.ts';
export { AuditLog, type AuditRecord, redactForAudit } from './audit-log.ts';
export { generateClientSecret, hashClientSecret, verifyClientSecret } from './client-secrets.ts';
export { intervalMs, PlatformEnv, publicBaseUrl, readEnv, upstreamOverrides } from './config.ts';
export { CredentialsCipher } from './credentials-cipher.ts';
export { type ChangeEventView, changeEventId, changeEventView } from './customer-webhooks/change-event-view.ts';
export {
  createDeliverySender,
  type DeliverySender,
  type SendOutcome,
} from './customer-webhooks/delivery-sender.ts';
export { newEndpointSecret, signedHeaders } from './customer-webhooks/endpoint-secret.ts';
export {
  type EndpointUrlPolicy,
  endpointUrlProblem,
  guardedLookup,
  isPublicAddress,
} from './customer-webhooks/endpoint-url.ts';
export { HostedConnectors, type UpstreamOverrides } from './hosted-connectors.ts';
export { type IndexedBatch, type IndexRefresh, IndexStore, type WrittenChanges } from './index-store.ts';
export { createLogger, type LogFields, type Logger, type LogLevel, redact } from './logger.ts';
export { type EntityLag, type MetricsSources, metricsAuthorized, PlatformMetrics } from './metrics.ts';
export {
  type CredentialSource,
  credentialsFrom,
  expandProviderUrl,
  OAUTH_PROVIDERS,
  type OAuthProvider,
  type OAuthProviderLookup,
  type OAuthProviderSpec,
  type OAuthProviders,
  oauthProviders,
} from './oauth-providers.ts';
export { connectPlatformServices, type PlatformServices } from './platform-services.ts';
export {
  connectorChangesChannel,
  connectorSchedulerId,
  entityJobId,
  JOB_NAMES,
  queuePrefix,
  SyncConnectorJob,
  SyncEntityJob,
  syncQueueName,
} from './queues.ts';
export { connectRedis, duplicateRedis, type RedisClient } from './redis-connection.ts';
export {
  currentRunId,
  type RecordWriter,
  type RefreshRecordDeps,
  type RefreshRecordOutcome,
  type RefreshRecordRequest,
  refreshRecord,
} from './refresh-record.ts';
export { projectRecord, recordKeyOf, SYNC_RUN_FIELD, searchDocument } from './search-documents.ts';
export {
  lookupRequest,
  SearchAbandonedError,
  type SearchAnswer,
  SearchQueueFullError,
  type SearchRequestOptions,
} from './search-transport.ts';
export {
  deriveSigningKey,
  type SigningKeys,
  type SigningPurpose,
  type SigningSecrets,
  signingKeysFrom,
} from './signing-keys.ts';
export { describeStartupError, exitOnStartupFailure, startProcess } from './startup-failure.ts';
export { SyncScheduler } from './sync-scheduler.ts';
export { type BudgetView, UpstreamBudgets } from './upstream-budget.ts';
export {
  type HeaderLookup,
  type ParsedWebhook,
  SIGNATURE_TOLERANCE_MS,
  type Verification,
  WEBHOOK_DEDUP_MS,
  WEBHOOK_JOB_NAME,
  type WebhookDelivery,
  WebhookEventJob,
  WebhookPayloadError,
  WebhookQueue,
  type WebhookRecordRef,
  type WebhookScheme,
  webhookQueueName,
  webhookSchemeFor,
} from './webhooks/index.ts';
