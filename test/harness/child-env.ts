/**
 * What every process a test starts (API, worker, admin CLI, launcher) takes from the test run, whatever else its
 * environment says: PATH, and NODE_COMPILE_CACHE (set by vitest.config.ts), so that each such process reuses the
 * code its predecessors compiled instead of compiling the same modules again: about a third of an admin CLI call's
 * CPU. https://nodejs.org/api/module.html#module-compile-cache
 */
export function inheritedEnv(): Record<string, string | undefined> {
  return { PATH: process.env.PATH, NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE };
}
