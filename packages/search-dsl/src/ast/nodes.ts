import type { FieldRef } from '../fields/field-resolution.ts';

/** A query value after validation: datetimes are ISO instants, integers decimal strings, flat paths strings. */
export type Scalar = string | number | boolean;
export type RangeOp = 'gt' | 'gte' | 'lt' | 'lte';

export type MatchAllNode = { readonly kind: 'MatchAllNode' };
/** `value: null` means "is null or missing" (IS NOT DISTINCT FROM NULL). */
export type EqNode = { readonly kind: 'EqNode'; readonly field: FieldRef; readonly value: Scalar | null };
/** IS DISTINCT FROM: also true when the field is null or missing. */
export type NeqNode = { readonly kind: 'NeqNode'; readonly field: FieldRef; readonly value: Scalar | null };
export type RangeNode = {
  readonly kind: 'RangeNode';
  readonly field: FieldRef;
  readonly op: RangeOp;
  readonly value: Scalar;
};
export type InNode = { readonly kind: 'InNode'; readonly field: FieldRef; readonly values: readonly Scalar[] };
export type LikeNode = { readonly kind: 'LikeNode'; readonly field: FieldRef; readonly pattern: string };
export type FuzzyNode = { readonly kind: 'FuzzyNode'; readonly field: FieldRef; readonly text: string };
export type KeywordNode = { readonly kind: 'KeywordNode'; readonly field: FieldRef; readonly text: string };
export type ContainsNode = { readonly kind: 'ContainsNode'; readonly field: FieldRef; readonly value: Scalar };
/** Some element of an array of objects matches `condition` (whose fields are relative to the element). */
export type AnyNode = { readonly kind: 'AnyNode'; readonly field: FieldRef; readonly condition: Node };
export type NotNode = { readonly kind: 'NotNode'; readonly condition: Node };
export type AndNode = { readonly kind: 'AndNode'; readonly conditions: readonly Node[] };
export type OrNode = { readonly kind: 'OrNode'; readonly conditions: readonly Node[] };

export type Node =
  | MatchAllNode
  | EqNode
  | NeqNode
  | RangeNode
  | InNode
  | LikeNode
  | FuzzyNode
  | KeywordNode
  | ContainsNode
  | AnyNode
  | NotNode
  | AndNode
  | OrNode;

export type NodeKind = Node['kind'];
type Of<K extends NodeKind> = Extract<Node, { kind: K }>;

function factory<K extends NodeKind>(kind: K) {
  return Object.freeze({
    create: (props: Omit<Of<K>, 'kind'>): Of<K> => Object.freeze({ kind, ...props }) as Of<K>,
    is: (node: Node): node is Of<K> => node.kind === kind,
  });
}

export const MatchAllNode = factory('MatchAllNode');
export const EqNode = factory('EqNode');
export const NeqNode = factory('NeqNode');
export const RangeNode = factory('RangeNode');
export const InNode = factory('InNode');
export const LikeNode = factory('LikeNode');
export const FuzzyNode = factory('FuzzyNode');
export const KeywordNode = factory('KeywordNode');
export const ContainsNode = factory('ContainsNode');
export const AnyNode = factory('AnyNode');
export const NotNode = factory('NotNode');
export const AndNode = factory('AndNode');
export const OrNode = factory('OrNode');

/** One handler per node kind: adding a node kind breaks every visitor until it handles it. */
export type NodeVisitor<R> = { readonly [K in NodeKind]: (node: Of<K>) => R };

export function visitNode<R>(node: Node, visitor: NodeVisitor<R>): R {
  const handler = visitor[node.kind] as (n: Node) => R;
  return handler(node);
}
