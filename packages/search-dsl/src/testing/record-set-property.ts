import fc from 'fast-check';
import { it } from 'vitest';
import { records } from './arbitraries.ts';

type TestRecord = Record<string, unknown>;

/**
 * The differential tests' property, as one test: `runs` random record sets, each asked three random queries of
 * `queries` and checked by `check` (which pages with cursors). `examples` are asked first on every run.
 */
export function itOnRandomRecordSets<Q>(
  runs: number,
  queries: fc.Arbitrary<Q>,
  check: (records: TestRecord[], queries: Q[]) => Promise<void>,
  options: { readonly timeoutMs: number; readonly examples?: [TestRecord[], Q[]][] },
): void {
  it(
    `on ${runs} random record sets × 3 random queries, paged with cursors`,
    async () => {
      await fc.assert(
        fc.asyncProperty(records, fc.array(queries, { minLength: 3, maxLength: 3 }), check),
        options.examples ? { numRuns: runs, examples: options.examples } : { numRuns: runs },
      );
    },
    options.timeoutMs,
  );
}
