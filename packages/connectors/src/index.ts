export { connect } from './connect.ts';
export { TokenCache } from './core/auth.ts';
export {
  ACTIONS,
  type ActionName,
  type AuthSpec,
  type ChangeCapture,
  type ConsentSpec,
  type CredentialSource,
  type EntityCatalog,
  entityActions,
  entityOf,
  hours,
  type KindCatalog,
  literalDottedFields,
  needsFullPasses,
  type SyncSpec,
} from './core/catalog.ts';
export { SUBDOMAIN_PATTERN } from './core/common-schemas.ts';
export type { Connector, ExecuteRequest, ExecuteResult } from './core/connect.ts';
export type {
  ConnectorSettings,
  DownloadResult,
  ReadPage,
  ReadRequest,
  UpstreamRecord,
} from './core/define-connector.ts';
export { didYouMean, editDistance, nearest } from './core/did-you-mean.ts';
export {
  ConnectorError,
  type ErrorCode,
  type FieldProblem,
  isConnectorError,
  toPointer,
  UpstreamError,
  UpstreamRateLimitError,
} from './core/errors.ts';
export { type FieldMap, type FieldSpec, type ScalarType, t } from './core/field-spec.ts';
export { defaultSleep } from './core/http-client.ts';
export { at } from './core/paging.ts';
export { failureReason, isRetryable } from './core/retry-decision.ts';
export {
  requestTokens,
  type TokenClientAuth,
  type TokenGrant,
  type TokenRequest,
  type TokenSet,
} from './core/token-endpoint.ts';
export { fillUrl } from './core/url-template.ts';
export { parseOrThrow, problemsOf, zodProblems } from './core/validate.ts';
export {
  type HeaderLookup,
  type ParsedWebhook,
  SIGNATURE_TOLERANCE_MS,
  type Verification,
  type WebhookDelivery,
  WebhookPayloadError,
  type WebhookRecordRef,
  type WebhookScheme,
} from './core/webhook-scheme.ts';
export {
  CONNECTOR_DEFINITIONS,
  connectorTypes,
  envSuffix,
  findConnectorDefinition,
  webhookSchemeFor,
} from './kinds/registry.ts';
