export type { WorkerDeps } from './deps.ts';
export { WORKER_NODE_FLAGS } from './node-flags.ts';
export { createWorkerRuntime, type WorkerRuntime } from './runtime.ts';
export { runEntitySync } from './sync-run.ts';
