import { AndNode, AnyNode, type Node, type NodeVisitor, NotNode, OrNode, visitNode } from './nodes.ts';

/**
 * AST-to-AST rewrite: merges nested `and`/`or`, unwraps single-child groups and double negation.
 * Meaning is unchanged because every leaf is two-valued (see README, "Nulls").
 */
export function flattenLogic(node: Node): Node {
  return visitNode(node, flattener);
}

const same = (node: Node): Node => node;

const flattener: NodeVisitor<Node> = {
  MatchAllNode: same,
  EqNode: same,
  NeqNode: same,
  RangeNode: same,
  InNode: same,
  LikeNode: same,
  FuzzyNode: same,
  KeywordNode: same,
  ContainsNode: same,
  AnyNode: (node) => AnyNode.create({ field: node.field, condition: flattenLogic(node.condition) }),
  NotNode: (node) => {
    const inner = flattenLogic(node.condition);
    return NotNode.is(inner) ? inner.condition : NotNode.create({ condition: inner });
  },
  AndNode: (node) => group(node.conditions, 'AndNode'),
  OrNode: (node) => group(node.conditions, 'OrNode'),
};

function group(conditions: readonly Node[], kind: 'AndNode' | 'OrNode'): Node {
  const out: Node[] = [];
  for (const child of conditions.map(flattenLogic)) {
    if (child.kind === kind) out.push(...child.conditions);
    else if (!(kind === 'AndNode' && child.kind === 'MatchAllNode')) out.push(child);
  }
  if (out.length === 1) return out[0]!;
  if (out.length === 0 && kind === 'AndNode') return { kind: 'MatchAllNode' };
  return kind === 'AndNode' ? AndNode.create({ conditions: out }) : OrNode.create({ conditions: out });
}
