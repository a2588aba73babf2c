import { afterAll } from 'vitest';

/** A list of cleanups that run after the enclosing describe's tests, the last pushed first. */
export function cleanupsAfterAll(): (() => Promise<void>)[] {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  return cleanups;
}
