export { createLogger, type Logger } from './logger.ts';
export { metricsAuthorized, PlatformMetrics } from './metrics.ts';
