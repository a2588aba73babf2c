import { parse, type SelectFromStatement, type Statement } from 'pgsql-ast-parser';
import { positionAt, SqlQueryError } from './sql-error.ts';
import { prescanSql, restoreLists } from './sql-prescan.ts';

/** Parsed statements kept by their text: dashboards and agents ask the same queries again and again. */
const CACHED_STATEMENTS = 1024;
const cache = new Map<string, SelectFromStatement>();

/**
 * `parseSql` with the last CACHED_STATEMENTS statements kept (least recently used out): the parser is the largest
 * cost of a query in the API process (nearley's Earley parser; docs/benchmarks/code-measurements.md). Statements are
 * never changed by the later stages, so one can be shared.
 */
export function parseSqlCached(text: string): SelectFromStatement {
  const hit = cache.get(text);
  if (hit) {
    cache.delete(text);
    cache.set(text, hit);
    return hit;
  }
  const statement = parseSql(text);
  cache.set(text, statement);
  if (cache.size > CACHED_STATEMENTS) cache.delete(cache.keys().next().value!);
  return statement;
}

/**
 * Stage 1: the text as one `SELECT ... FROM ...` statement, with the offset of every node (`_location`), by
 * pgsql-ast-parser (a PostgreSQL grammar; see docs/sql.md for why this parser). Nothing but a single plain SELECT
 * passes: no other statement, no second statement, no UNION, WITH or VALUES. The text's size, tokens, nesting and
 * IN lists are checked first (prescanSql): the parser's cost grows faster than its input.
 *
 * @throws SqlQueryError `invalid_sql` at the line and column where the text stops being SQL or the subset.
 */
function parseSql(text: string): SelectFromStatement {
  const fail = (offset: number, message: string): never => {
    throw new SqlQueryError('invalid_sql', [{ ...positionAt(text, offset), message }]);
  };
  const scanned = prescanSql(text);
  let statements: Statement[];
  try {
    statements = parse(scanned.text, { locationTracking: true });
  } catch (error) {
    throw syntaxError(text, error);
  }
  restoreLists(statements, scanned, text);
  if (statements.length === 0) return fail(0, 'expected a SELECT statement');
  if (statements.length > 1) {
    return fail(statements[1]!._location?.start ?? 0, 'only one SELECT statement is accepted');
  }
  const statement = statements[0]!;
  if (statement.type !== 'select') {
    const what = statement.type === 'union' || statement.type === 'union all' ? 'UNION' : statement.type.toUpperCase();
    return fail(statement._location?.start ?? 0, `only a SELECT statement is accepted, not ${what}`);
  }
  return statement;
}

/** The parser's error as a problem at its line and column, with the tokens it expected in SQL's words. */
function syntaxError(text: string, error: unknown): SqlQueryError {
  const raw = error instanceof Error ? error.message : String(error);
  const at = /line (\d+) col (\d+)/.exec(raw);
  const position = at ? { line: Number(at[1]), column: Number(at[2]) } : positionAt(text, text.length);
  const unexpected = /Unexpected (.+?) token: ("[^"]*"|\S+)/.exec(raw);
  const expected = [...raw.matchAll(/A "([^"]+)" token/g)].map((m) => tokenName(m[1]!));
  const found = unexpected
    ? `unexpected ${unexpected[2]}`
    : /end of input/i.test(raw)
      ? 'unexpected end of input'
      : 'invalid syntax';
  const hint = expected.length > 0 ? `; expected ${[...new Set(expected)].slice(0, 8).join(', ')}` : '';
  return new SqlQueryError('invalid_sql', [{ ...position, message: `syntax error: ${found}${hint}` }]);
}

function tokenName(token: string): string {
  if (token.startsWith('kw_')) return token.slice(3).toUpperCase();
  return token.replace(/_/g, ' ');
}
