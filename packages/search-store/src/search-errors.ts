/**
 * What a search over the copy fails with: small named classes, matched with `instanceof` by the caller that maps
 * them to answers (a 429, a 503 or the query's own 400). `name` is set so a logged error says which it was.
 */

/** A search the waiting line could not take: its tenant already has as many waiting as it may. */
export class SearchQueueFullError extends Error {
  override readonly name = 'SearchQueueFullError';
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super('too many searches of this organization are waiting for the search engine');
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** A search whose caller went away (its signal aborted): taken out of the line, or cancelled in the engine. */
export class SearchAbandonedError extends Error {
  override readonly name = 'SearchAbandonedError';
  constructor() {
    super('the caller went away before the search was answered');
  }
}

/** The engine stopped the search at its `timeout` and answered part of the records: no answer. */
export class SearchTimeoutError extends Error {
  override readonly name = 'SearchTimeoutError';
  constructor() {
    super('the search ran over the search engine time limit');
  }
}

/**
 * The engine refused the search (a status other than 200 and 404). `answer` is its error answer, parsed: some
 * errors are the query's to fix (search-dsl's `searchProblemOf` reads it), the others mean the index cannot answer.
 */
export class EngineQueryError extends Error {
  override readonly name = 'EngineQueryError';
  readonly status: number;
  readonly answer: unknown;
  constructor(status: number, answer: unknown) {
    const reason = engineReason(answer);
    super(`search answered ${status}: ${reason.type} ${reason.reason}`.trim());
    this.status = status;
    this.answer = answer;
  }
}

function engineReason(answer: unknown): { type: string; reason: string } {
  const error = typeof answer === 'object' && answer !== null ? (answer as { error?: unknown }).error : undefined;
  if (typeof error !== 'object' || error === null) return { type: '', reason: '' };
  const { type, reason } = error as { type?: unknown; reason?: unknown };
  return { type: typeof type === 'string' ? type : '', reason: typeof reason === 'string' ? reason : '' };
}
