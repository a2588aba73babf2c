/** Where in the SQL text a problem is: 1-based line and column (of the first character concerned). */
export type SqlPosition = { readonly line: number; readonly column: number };

/** One problem of a SQL query, at its position in the text. */
export type SqlProblem = SqlPosition & { readonly message: string };

/**
 * `invalid_sql`: outside the subset, unknown tables or columns, wrong types; `query_too_costly`: a WHERE over the
 * search cost budget; `invalid_cursor`: forged, or from another query.
 */
export type SqlErrorCode = 'invalid_sql' | 'query_too_costly' | 'invalid_cursor';

/**
 * Every expected failure of the SQL stages (SqlErrorCode), each problem at its line and column.
 *
 * @example
 * try { planSql(text, options) } catch (e) { if (isSqlQueryError(e)) reply(400, e.code, e.problems) }
 */
export class SqlQueryError extends Error {
  override readonly name = 'SqlQueryError';
  readonly code: SqlErrorCode;
  readonly problems: readonly SqlProblem[];

  constructor(code: SqlErrorCode, problems: readonly SqlProblem[]) {
    super(problems.map((p) => `line ${p.line}, column ${p.column}: ${p.message}`).join('; '));
    this.code = code;
    this.problems = Object.freeze([...problems]);
  }
}

export function isSqlQueryError(value: unknown): value is SqlQueryError {
  return value instanceof SqlQueryError || (value instanceof Error && value.name === 'SqlQueryError');
}

/** The line and column of a character offset in `text`. */
export function positionAt(text: string, offset: number): SqlPosition {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}
