export { QuotaExceededError } from './quota-exceeded.ts';
export { Quotas } from './quotas.ts';
export { UsageMeter } from './usage-meter.ts';
export { API_METRICS, dayOf, USAGE_METRICS, type UsageMetric } from './usage-metrics.ts';
