export { WORKER_NODE_FLAGS } from './node-flags.ts';
export { createWorkerRuntime, type WorkerRuntime } from './runtime.ts';
