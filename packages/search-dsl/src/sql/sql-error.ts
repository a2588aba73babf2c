/** Where in the SQL text a problem is: 1-based line and column (of the first character concerned). */
export type SqlPosition = { readonly line: number; readonly column: number };

/** One problem of a SQL query, at its position in the text. */
export type SqlProblem = SqlPosition & { readonly message: string };

/**
 * Every expected failure of the SQL stages: `invalid_sql` (outside the subset, unknown tables or columns, wrong
 * types; each problem at its line and column), or `invalid_cursor` (forged, or from another query).
 *
 * @example
 * try { planSql(text, options) } catch (e) { if (isSqlQueryError(e)) reply(400, e.code, e.problems) }
 */
export class SqlQueryError extends Error {
  override readonly name = 'SqlQueryError';
  readonly code: 'invalid_sql' | 'invalid_cursor';
  readonly problems: readonly SqlProblem[];

  constructor(code: 'invalid_sql' | 'invalid_cursor', problems: readonly SqlProblem[]) {
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
