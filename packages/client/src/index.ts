export type {
  ChangeEventAt,
  ChangesOptions,
  ChangeType,
  WebhookDelivery,
  WebhookEndpointInput,
} from './changes.ts';
export { WebhookEndpoints } from './changes.ts';
export { Conduit, ConnectorClient, Connectors } from './conduit.ts';
export { ConnectorDefinitions, type DefinitionTestInput } from './definitions.ts';
export type {
  AuditEntry,
  AuditPage,
  AuditQuery,
  Catalog,
  ChangeEvent,
  ChangesPage,
  ConnectorDefinition,
  ConnectorList,
  DefinitionTestResult,
  ExecuteResult,
  OAuthInitiateRequest,
  OAuthInitiateResponse,
  SearchTotal,
  WebhookEndpoint,
} from './generated/api.ts';
export { CONNECTOR_TYPES, type ConnectorKinds, LIST_PAGING, type ListPaging } from './generated/catalog.ts';
export {
  ConduitProblem,
  type FieldProblem,
  isConduitProblem,
  type ProblemDetails,
  retryAfterSeconds,
} from './problem.ts';
export type {
  Aggregation,
  AggregationResult,
  AggregationResults,
  Bucket,
  Filter,
  SearchFields,
  SearchMeta,
  SearchParams,
  SearchQuery,
  SearchResult,
  SortEntry,
} from './search-types.ts';
export type {
  SqlColumn,
  SqlColumnOf,
  SqlResult,
  SqlText,
} from './sql-types.ts';
export type { ConduitOptions, FetchLike } from './transport.ts';
export type {
  ActionName,
  ConnectorType,
  ConnectorView,
  CreateConnectorInput,
  Download,
  EntityName,
  EntityStatus,
  ExecuteRequest,
  ListResult,
  PageableEntity,
  ParamsOf,
  RecordOf,
  ResultOf,
  SearchableEntity,
  SearchFieldsOf,
  SyncOptions,
} from './types.ts';
export type {
  DateTimeValue,
  DecimalValue,
  FlatValue,
  IntegerValue,
} from './values.ts';
