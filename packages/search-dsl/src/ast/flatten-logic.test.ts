import { describe, expect, it } from 'vitest';
import { parseSearchParams } from '../params/parse-search-params.ts';
import { TEST_SCHEMA } from '../testing/test-schema.ts';
import { validateSearch } from '../validate/validate-search.ts';
import { type Node, type NodeVisitor, visitNode } from './nodes.ts';

const shape = (filter: unknown): string =>
  show(validateSearch(parseSearchParams({ query: { filter } }), { searchable: TEST_SCHEMA }).filter);

const show = (node: Node): string => visitNode(node, printer);
const leaf = (node: { kind: string; field: { path: string } }) =>
  `${node.kind.replace('Node', '')}(${node.field.path})`;
const printer: NodeVisitor<string> = {
  MatchAllNode: () => 'all',
  EqNode: leaf,
  NeqNode: leaf,
  RangeNode: leaf,
  InNode: leaf,
  LikeNode: leaf,
  FuzzyNode: leaf,
  KeywordNode: leaf,
  ContainsNode: leaf,
  AnyNode: (n) => `Any(${n.field.path}: ${show(n.condition)})`,
  NotNode: (n) => `Not(${show(n.condition)})`,
  AndNode: (n) => `And(${n.conditions.map(show).join(', ')})`,
  OrNode: (n) => `Or(${n.conditions.map(show).join(', ')})`,
};

describe('flattenLogic (applied by validateSearch)', () => {
  it('merges nested groups and unwraps single children', () => {
    expect(shape({ and: [{ and: [{ eq: { id: 'a' } }, { eq: { name: 'b' } }] }, { or: [{ eq: { id: 'c' } }] }] })).toBe(
      'And(Eq(id), Eq(name), Eq(id))',
    );
    expect(shape({ or: [{ or: [{ eq: { id: 'a' } }] }, { eq: { id: 'b' } }] })).toBe('Or(Eq(id), Eq(id))');
  });

  it('removes double negation, also inside any', () => {
    expect(shape({ not: { not: { eq: { id: 'a' } } } })).toBe('Eq(id)');
    expect(shape({ any: { lines: { not: { not: { eq: { sku: 'a' } } } } } })).toBe('Any(lines: Eq(lines.sku))');
  });

  it('ANDs several operators and several fields of one operator', () => {
    expect(shape({ eq: { id: 'a', name: 'b' }, gt: { amount: 1 } })).toBe('And(Eq(id), Eq(name), Range(amount))');
  });
});
