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
export { connectWith } from './core/connect.ts';
export { connectorSettingsShape } from './core/connector-settings.ts';
export type { ConnectorDefinition, ConnectorSettings, ReadPage } from './core/define-connector.ts';
export { didYouMean, editDistance } from './core/did-you-mean.ts';
export { type EgressPolicy, egressFetch, templateHost } from './core/egress.ts';
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
export { parseOrThrow, problemsOf } from './core/validate.ts';
export { type ParsedWebhook, WebhookPayloadError } from './core/webhook-scheme.ts';
export { compileDefinition } from './definitions/compile-definition.ts';
export { definitionJsonSchema } from './definitions/definition-format.ts';
export { checkDefinition, DEFINITION_LIMITS } from './definitions/definition-problems.ts';
export { exportDefinition } from './definitions/export-definition.ts';
export { testDefinition } from './definitions/test-definition.ts';
export {
  type AnyDefinition,
  CONNECTOR_DEFINITIONS,
  connectorTypes,
  envSuffix,
  findConnectorDefinition,
} from './kinds/registry.ts';
