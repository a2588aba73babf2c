/**
 * Node flags the worker process runs with (the launcher, the tests' worker process and bench:sync use these).
 * A sync run allocates a page at a time and keeps nothing; bounded young and old generations keep the
 * worker's RSS flat and small instead of letting V8 grow its heap lazily (bench:sync prints the peak).
 */
export const WORKER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=2', '--max-old-space-size=192'];
