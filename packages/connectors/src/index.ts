export { connect } from './connect.ts';
export { TokenCache } from './core/auth.ts';
export {
  ACTIONS,
  type AuthSpec,
  type ConsentSpec,
  type EntityCatalog,
  entityActions,
  entityOf,
  type KindCatalog,
  literalDottedFields,
  needsFullPasses,
} from './core/catalog.ts';
export type { Connector, ExecuteResult } from './core/connect.ts';
export { connectorSettingsShape } from './core/connector-settings.ts';
export type { ReadPage } from './core/define-connector.ts';
export { didYouMean, nearest } from './core/did-you-mean.ts';
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
export { requestTokens } from './core/token-endpoint.ts';
export { fillUrl } from './core/url-template.ts';
export { parseOrThrow, problemsOf, zodProblems } from './core/validate.ts';
export { isPlainObject, valueAt } from './core/values.ts';
export { type ParsedWebhook, WebhookPayloadError } from './core/webhook-scheme.ts';
export {
  CONNECTOR_DEFINITIONS,
  connectorTypes,
  envSuffix,
  findConnectorDefinition,
  webhookSchemeFor,
} from './kinds/registry.ts';
