export type { WorkerDeps } from './deps.ts';
export { createWorkerRuntime, type WorkerRuntime } from './runtime.ts';
export { runEntitySync } from './sync-run.ts';
