import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { FileDurations } from './test/reporters/file-durations.ts';

// Node's on-disk compile cache for every process of the run (test workers, and through test/harness/child-env.ts the
// API, worker and CLI processes the tests start): a module compiled once is not compiled again by the next process.
// Under the system's temporary directory, as Node recommends. https://nodejs.org/api/module.html#module-compile-cache
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'conduit-test-compile-cache');

// The workspace's own modules (each package's src, the API's and the worker's), but not the tests nor their helpers
// (src/testing/): Node loads them itself, as in production (type stripping: tsconfig's erasableSyntaxOnly keeps them
// loadable so), instead of Vite transforming them for every test file's worker to evaluate. A worker then imports the
// platform in about half the CPU. Nothing here mocks a module (vi.mock works only on modules Vite transforms).
// https://vitest.dev/config/#server-deps-external
const WORKSPACE_SOURCE = /\/(packages\/[^/]+|apps\/(api|worker))\/src\/(?!testing\/)(?!.*\.test\.ts$).*\.ts$/;

const WORKERS = Number(process.env.VITEST_MAX_WORKERS ?? 3);

/**
 * Three projects, all run by `vitest run` (`./dev test`); `--project unit` (or integration, e2e) runs one:
 * - unit: pure code beside its source, no service;
 * - integration: a package against the real Postgres, Redis or OpenSearch (`*.int.test.ts`);
 * - e2e: the platform as a whole, through its HTTP API, against the upstream simulators (`test/`).
 */
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // A worker process runs its files one after another instead of a new process per file: the modules a file
    // loads natively (the workspace's, see below; the platform's take about 2.8 CPU-s) load once per worker, not
    // once per file. Ten e2e files in one worker took 32 CPU-s instead of 60. Files share the process, so each
    // closes what it starts (platforms, simulators, processes, real timers back after fake ones) and none changes
    // process-wide state (environment, globals); nothing mocks a module. Vitest still runs each project in
    // workers of its own. https://vitest.dev/config/isolate
    isolate: false,
    // Vitest's default is one worker per core less one: a single worker on a 2-core machine, where most files wait
    // on Postgres, Redis, OpenSearch and the simulators rather than compute. VITEST_MAX_WORKERS overrides it.
    maxWorkers: WORKERS,
    // As many workers kept as may run: with isolate off, the pool (tinypool) ends a worker that finds the queue empty
    // while others still run (its minimum is one per core less one), and a worker ended so rejects its teardown
    // unhandled, which stops the whole run with the files still running unreported ("Terminating worker thread").
    minWorkers: WORKERS,
    reporters: ['default', new FileDurations()],
    server: { deps: { external: [WORKSPACE_SOURCE] } },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['apps/*/src/**/*.test.ts', 'packages/*/src/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
        },
      },
      {
        extends: true,
        test: { name: 'integration', include: ['apps/*/src/**/*.int.test.ts', 'packages/*/src/**/*.int.test.ts'] },
      },
      { extends: true, test: { name: 'e2e', include: ['test/**/*.test.ts'] } },
    ],
  },
});
