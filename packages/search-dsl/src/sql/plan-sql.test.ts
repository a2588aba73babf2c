import { describe, expect, it } from 'vitest';
import { TEST_SCHEMA } from '../testing/test-schema.ts';
import { planSql } from './run-sql.ts';
import { isSqlQueryError, type SqlProblem } from './sql-error.ts';

const options = { tables: { things: { searchable: TEST_SCHEMA, recordKey: 'id' } }, connectorId: 'c1', cursorKey: 'k' };

function problems(query: string): readonly SqlProblem[] {
  try {
    planSql({ query }, options);
  } catch (error) {
    if (isSqlQueryError(error)) return error.problems;
    throw error;
  }
  throw new Error(`accepted: ${query}`);
}

describe('planSql', () => {
  it('puts an unknown column at its line and column, with "did you mean"', () => {
    expect(problems('SELECT id,\n  nmae\nFROM things')).toEqual([
      {
        line: 2,
        column: 3,
        message: expect.stringContaining("unknown column 'nmae' in 'things'. Did you mean 'name'?"),
      },
    ]);
  });

  it('puts an unknown table at its position, with "did you mean"', () => {
    expect(problems('SELECT id FROM thing')[0]).toMatchObject({
      line: 1,
      column: 16,
      message: expect.stringContaining("Did you mean 'things'"),
    });
  });

  it('reports a value of the wrong type at the condition, through the search validator', () => {
    expect(problems("SELECT id FROM things WHERE amount > 'x' AND active = 3")).toEqual([
      { line: 1, column: 29, message: 'expected a number' },
      { line: 1, column: 46, message: 'expected a boolean' },
    ]);
  });

  it('refuses everything but one SELECT', () => {
    expect(problems('DELETE FROM things')[0]!.message).toContain('only a SELECT statement is accepted');
    expect(problems('SELECT id FROM things; SELECT id FROM things')[0]).toMatchObject({ line: 1, column: 24 });
    expect(problems('SELECT id FROM things UNION SELECT id FROM things')[0]!.message).toContain('UNION');
    expect(problems('SELECT DISTINCT name FROM things')[0]!.message).toContain('GROUP BY');
    expect(problems('SELECT id FROM things OFFSET 5')[0]!.message).toContain('OFFSET');
    expect(problems('SELECT upper(name) FROM things')[0]!.message).toContain('not supported');
    expect(problems('SELECT id FROM things WHERE name = NULL')[0]!.message).toContain('IS NULL');
  });

  it('gives a syntax error the parser’s position and the tokens it expected', () => {
    expect(problems('SELECT id\nFRM things')[0]).toMatchObject({
      line: 2,
      message: expect.stringContaining('syntax error'),
    });
  });

  it('asks grouped queries to group or aggregate every column, and aggregates to apply', () => {
    expect(problems('SELECT name, amount FROM things GROUP BY name')[0]!.message).toContain(
      "'amount' must appear in GROUP BY",
    );
    expect(problems('SELECT SUM(name) FROM things')[0]!.message).toContain("SUM does not apply to 'name' (string)");
    expect(problems('SELECT tags, COUNT(*) FROM things GROUP BY tags')[0]!.message).toContain('cannot group by');
    expect(problems("SELECT DATE_TRUNC('year', created_at) FROM things GROUP BY 1")[0]!.message).toContain("'hour'");
  });

  it('names duplicate columns apart and flags COUNT(DISTINCT) as approximate', () => {
    const plan = planSql({ query: 'SELECT COUNT(*), COUNT(DISTINCT name) FROM things' }, options);
    expect(plan.query.mode === 'groups' && plan.query.columns.map(({ operand: _, ...c }) => c)).toEqual([
      { name: 'count', type: 'integer' },
      { name: 'count_2', type: 'integer', approximate: { precision_threshold: 40000 } },
    ]);
  });

  it('keeps the digits of numeric literals (int64 and 6-decimal amounts)', () => {
    const plan = planSql(
      { query: 'SELECT id FROM things WHERE count = 9007199254740993 AND price = 9223372036854.775806' },
      options,
    );
    expect(plan.query.mode === 'rows' && plan.query.search.filter).toMatchObject({
      conditions: [{ value: '9007199254740993' }, { value: '9223372036854.775806' }],
    });
  });
});
