export { createLogger, type Logger } from './logger.ts';
export { metricsAuthorized, PlatformMetrics, type UsageReading } from './metrics.ts';
export { exitOnStartupFailure, startProcess } from './startup-failure.ts';
