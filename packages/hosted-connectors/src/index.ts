export { HostedConnectors, type UpstreamOverrides } from './hosted-connectors.ts';
export { indexKindOf, KindRegistry, type ResolvedKind } from './kind-registry.ts';
export {
  currentRunId,
  type RecordWriter,
  type RefreshRecordDeps,
  type RefreshRecordOutcome,
  refreshRecord,
} from './refresh-record.ts';
export { UpstreamBudgets } from './upstream-budget.ts';
