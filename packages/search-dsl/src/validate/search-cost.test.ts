import { describe, expect, it } from 'vitest';
import { likeShape } from '../compile/opensearch/like-pattern.ts';
import { overBudget, SEARCH_BUDGET, searchCost } from './search-cost.ts';

const query = (filter: Record<string, unknown>) => ({ query: { filter } });
const cost = (filter: Record<string, unknown>, aggregate?: Record<string, unknown>) =>
  searchCost({ ...query(filter), ...(aggregate ? { aggregate } : {}) } as never);

describe('likeShape', () => {
  it('counts wildcards after the substring rule, literal characters, and the longest literal run with anchors', () => {
    expect(likeShape('acme')).toEqual({ wildcards: 2, literals: 4, longestLiteralRun: 4 });
    expect(likeShape('ab%')).toEqual({ wildcards: 1, literals: 2, longestLiteralRun: 3 });
    expect(likeShape('%ab')).toEqual({ wildcards: 1, literals: 2, longestLiteralRun: 3 });
    expect(likeShape('%a%b%c%')).toEqual({ wildcards: 4, literals: 3, longestLiteralRun: 1 });
    expect(likeShape('ab')).toEqual({ wildcards: 2, literals: 2, longestLiteralRun: 2 });
    expect(likeShape('a\\%b%')).toEqual({ wildcards: 1, literals: 3, longestLiteralRun: 4 });
    expect(likeShape('____x')).toEqual({ wildcards: 4, literals: 1, longestLiteralRun: 2 });
  });
});

describe('searchCost', () => {
  it('costs one unit per term or range, and nothing for a search without a filter', () => {
    expect(searchCost({ query: {} }).total).toBe(0);
    expect(cost({ eq: { status: 'paid' }, gte: { total: 5 } }).total).toBe(2);
  });

  it('costs a like the 3-gram index narrows by its literal characters, and a scanning one far more', () => {
    expect(cost({ like: { memo: 'business' } }).parts).toEqual([
      { path: '/query/filter/like/memo', cost: 2, why: '8 literal characters' },
    ]);
    expect(cost({ like: { memo: 'x'.repeat(256) } }).total).toBe(2 + 8);
    const scan = cost({ like: { memo: '%a%b%c%' } });
    expect(scan.total).toBe(SEARCH_BUDGET.scanLike + 4 * SEARCH_BUDGET.scanLikePerWildcard);
    expect(scan.parts[0]?.why).toMatch(/every record is checked/);
  });

  it('names every part by the JSON pointer the caller wrote, costliest first, through and/or/not/any', () => {
    const { parts } = cost({
      or: [{ eq: { status: 'paid' } }, { not: { fuzzy: { memo: 'thank you business' } } }],
      any: { line_items: { in: { name: Array.from({ length: 130 }, (_, i) => `n${i}`) } } },
    });
    expect(parts.map((p) => [p.path, p.cost])).toEqual([
      ['/query/filter/or/1/not/fuzzy/memo', 12],
      ['/query/filter/any/line_items/in/name', 4],
      ['/query/filter/any/line_items', 2],
      ['/query/filter/or/0/eq/status', 1],
    ]);
  });

  it('costs aggregations by their buckets', () => {
    const { parts } = cost(
      {},
      { top: { count_by: 'status', size: 1000 }, days: { histogram: 'paid_at', interval: 'day' } },
    );
    expect(parts).toEqual([
      { path: '/aggregate/top/count_by', cost: 11, why: '1000 buckets' },
      { path: '/aggregate/days/histogram', cost: 5, why: 'a bucket per interval' },
    ]);
  });
});

describe('overBudget', () => {
  it('refuses an or of 200 like patterns of 256 characters, naming the costliest parts and the limit', () => {
    const patterns = Array.from({ length: 200 }, (_, i) => ({ like: { memo: `${i}`.padEnd(256, 'x') } }));
    const problems = overBudget(cost({ or: patterns }));
    expect(problems).toHaveLength(5);
    expect(problems[0]).toEqual({
      path: '/query/filter/or/0/like/memo',
      message: 'the search costs 2000 units, over the budget of 100; this part costs 10 (256 literal characters)',
    });
  });

  it('allows one scanning like beside cheap conditions, not two', () => {
    expect(overBudget(cost({ like: { memo: '%a%b%' }, eq: { status: 'paid' } }))).toEqual([]);
    const two = overBudget(cost({ or: [{ like: { memo: '%a%b%' } }, { like: { memo: '_x' } }] }));
    expect(two[0]?.message).toMatch(/over the budget of 100/);
  });

  it('refuses a like with more wildcards than its limit, whatever the total', () => {
    const pattern = Array.from({ length: 20 }, () => '%abc').join('');
    expect(overBudget(cost({ like: { memo: pattern } }))).toEqual([
      {
        path: '/query/filter/like/memo',
        message: 'a like pattern has at most 16 wildcards (% and _); this one has 20',
      },
    ]);
  });

  it('accepts the costliest search of each kind the budget allows', () => {
    const tenLong = Array.from({ length: 10 }, (_, i) => ({ like: { memo: `${i}`.padEnd(256, 'y') } }));
    expect(overBudget(cost({ or: tenLong }))).toEqual([]);
    expect(overBudget(cost({ fuzzy: { memo: Array.from({ length: 25 }, (_, i) => `word${i}`).join(' ') } }))).toEqual(
      [],
    );
  });
});
