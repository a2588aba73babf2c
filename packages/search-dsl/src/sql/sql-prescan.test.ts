import { describe, expect, it } from 'vitest';
import { TEST_SCHEMA } from '../testing/test-schema.ts';
import { planSql } from './run-sql.ts';
import { isSqlQueryError, type SqlProblem } from './sql-error.ts';
import { prescanSql, SQL_TEXT_LIMITS } from './sql-prescan.ts';

const options = { tables: { things: { searchable: TEST_SCHEMA, recordKey: 'id' } }, connectorId: 'c1', cursorKey: 'k' };

function refused(query: string): SqlProblem {
  try {
    planSql({ query }, options);
  } catch (error) {
    if (isSqlQueryError(error)) return error.problems[0]!;
    throw error;
  }
  throw new Error(`accepted: ${query.slice(0, 80)}`);
}

const values = (n: number, item: (i: number) => string) => Array.from({ length: n }, (_, i) => item(i)).join(', ');

describe('prescanSql', () => {
  it('accepts an IN list of 1,024 values and gives the query every one, numbers with their digits', () => {
    const query = `SELECT id FROM things WHERE count IN (9007199254740993, ${values(1023, (i) => String(i - 500))})`;
    const plan = planSql({ query }, options);
    const filter = plan.query.mode === 'rows' ? plan.query.search.filter : undefined;
    expect(filter).toMatchObject({ kind: 'InNode' });
    const list = (filter as unknown as { values: readonly unknown[] }).values;
    expect(list).toHaveLength(1024);
    expect(list.slice(0, 3)).toEqual(['9007199254740993', '-500', '-499']);
  });

  it('gives strings back unquoted, with doubled quotes as one', () => {
    const plan = planSql(
      { query: `SELECT id FROM things WHERE name NOT IN ('a''b', 'c', 'd', ${values(50, (i) => `'x${i}'`)})` },
      options,
    );
    const filter = plan.query.mode === 'rows' ? plan.query.search.filter : undefined;
    expect(JSON.stringify(filter)).toContain(`"a'b"`);
    expect(JSON.stringify(filter)).toContain('"x49"');
  });

  it('refuses the 1,025th IN value at its position, naming the limit, before parsing', () => {
    const query = `SELECT id FROM things WHERE count IN (${values(1025, (i) => String(i))})`;
    const problem = refused(query);
    expect(problem.message).toBe('an IN list has at most 1024 values; this one has 1025');
    expect(problem.column).toBe(query.lastIndexOf('1024') + 1);
  });

  it('refuses a text over the token limit at the first token past it', () => {
    const query = `SELECT ${values(150, () => 'name')} FROM things`;
    const problem = refused(query);
    expect(problem.message).toBe(
      `a query has at most ${SQL_TEXT_LIMITS.maxTokens} tokens (an IN list of values counts as two)`,
    );
    expect(problem.column).toBeLessThan(query.length);
  });

  it('counts an IN list of expressions token by token', () => {
    expect(refused(`SELECT id FROM things WHERE count IN (${values(120, (i) => `${i}+1`)})`).message).toContain(
      'tokens',
    );
  });

  it('refuses parentheses nested deeper than 16 at the 17th', () => {
    const problem = refused(`SELECT id FROM things WHERE ${'('.repeat(17)}count = 1${')'.repeat(17)}`);
    expect(problem).toEqual({ line: 1, column: 29 + 16, message: 'parentheses nest at most 16 deep' });
  });

  it('refuses a text over 64 KiB', () => {
    expect(refused(`SELECT id FROM things WHERE name = '${'x'.repeat(65_536)}'`).message).toBe(
      'a query has at most 65536 characters',
    );
  });

  it('keeps the positions of everything after a list it shortened', () => {
    const problem = refused(`SELECT id FROM things WHERE count IN (${values(100, String)})\n  AND nmae = 'x'`);
    expect(problem).toMatchObject({ line: 2, column: 7, message: expect.stringContaining("unknown column 'nmae'") });
  });

  it('leaves lists inside strings, quoted names and comments alone', () => {
    const text = `SELECT id FROM things WHERE name = 'in (1, 2, 3)' -- in (4, 5, 6)\n /* in (7, 8, 9) */`;
    expect(prescanSql(text)).toEqual({ text, lists: new Map() });
    expect(planSql({ query: text }, options).query.mode).toBe('rows');
  });

  it('leaves an unterminated string to the parser, which says where the text stops being SQL', () => {
    expect(refused("SELECT id FROM things WHERE name = 'x").message).toContain('syntax error');
  });
});
