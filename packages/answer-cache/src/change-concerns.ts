import type { ChangeWithPrior } from '@conduit/db';
import { type FilterNode, recordMatches } from '@conduit/search-dsl';

/**
 * Whether a change may alter an answer computed from the records matching `filter`: unless the record before and
 * the record after both fall outside it (docs/architecture.md, "The answer cache"). Pages, totals, aggregations and SQL
 * groups are all computed from the matching records alone, so a change outside leaves each of them as it was. A
 * record before that is unknown (its event past the retention) may have matched; so may a record the evaluator
 * cannot read.
 */
export function changeConcerns(filter: FilterNode, change: Pick<ChangeWithPrior, 'record' | 'prior'>): boolean {
  try {
    if (change.record !== null && recordMatches(filter, change.record)) return true;
    if (change.prior === undefined) return true;
    return change.prior !== null && recordMatches(filter, change.prior);
  } catch {
    return true;
  }
}
