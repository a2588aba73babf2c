import { afterAll, beforeAll } from 'vitest';

/**
 * Starts a simulator before the tests of the enclosing describe block and closes it after them.
 *
 * The simulator only exists once beforeAll has run, yet tests read it as a plain value (`sim.url`, `sim.refreshes`):
 * the returned handle forwards every property to the running simulator, so the tests need no getter call.
 */
export function simulatorForAll<S extends { close(): Promise<void> }>(start: () => Promise<S>): S {
  let running: S | undefined;
  beforeAll(async () => {
    running = await start();
  });
  afterAll(() => running?.close());
  return new Proxy({} as S, {
    get(_, property) {
      if (!running) throw new Error(`the simulator is read (${String(property)}) before beforeAll started it`);
      const value: unknown = Reflect.get(running, property);
      return typeof value === 'function' ? value.bind(running) : value;
    },
  });
}
