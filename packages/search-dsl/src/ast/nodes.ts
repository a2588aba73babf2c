import type { FieldRef } from '../fields/field-resolution.ts';
import { kindFactory, type Visitor, visit } from './kinds.ts';

/** A query value after validation: datetimes are ISO instants, integers decimal strings, flat paths strings. */
export type Scalar = string | number | boolean;
export type RangeOp = 'gt' | 'gte' | 'lt' | 'lte';

/** Each node kind: its type, and beside it its factory under the same name (`EqNode.create`, `EqNode.is`). */
const factory = kindFactory<Node>();

export type MatchAllNode = { readonly kind: 'MatchAllNode' };
export const MatchAllNode = factory('MatchAllNode');
/** `value: null` means "is null or missing" (IS NOT DISTINCT FROM NULL). */
export type EqNode = { readonly kind: 'EqNode'; readonly field: FieldRef; readonly value: Scalar | null };
export const EqNode = factory('EqNode');
/** IS DISTINCT FROM: also true when the field is null or missing. */
export type NeqNode = { readonly kind: 'NeqNode'; readonly field: FieldRef; readonly value: Scalar | null };
export const NeqNode = factory('NeqNode');
export type RangeNode = {
  readonly kind: 'RangeNode';
  readonly field: FieldRef;
  readonly op: RangeOp;
  readonly value: Scalar;
};
export const RangeNode = factory('RangeNode');
export type InNode = { readonly kind: 'InNode'; readonly field: FieldRef; readonly values: readonly Scalar[] };
export const InNode = factory('InNode');
export type LikeNode = { readonly kind: 'LikeNode'; readonly field: FieldRef; readonly pattern: string };
export const LikeNode = factory('LikeNode');
export type FuzzyNode = { readonly kind: 'FuzzyNode'; readonly field: FieldRef; readonly text: string };
export const FuzzyNode = factory('FuzzyNode');
export type KeywordNode = { readonly kind: 'KeywordNode'; readonly field: FieldRef; readonly text: string };
export const KeywordNode = factory('KeywordNode');
export type ContainsNode = { readonly kind: 'ContainsNode'; readonly field: FieldRef; readonly value: Scalar };
export const ContainsNode = factory('ContainsNode');
/** Some element of an array of objects matches `condition` (whose fields are relative to the element). */
export type AnyNode = { readonly kind: 'AnyNode'; readonly field: FieldRef; readonly condition: Node };
export const AnyNode = factory('AnyNode');
export type NotNode = { readonly kind: 'NotNode'; readonly condition: Node };
export const NotNode = factory('NotNode');
export type AndNode = { readonly kind: 'AndNode'; readonly conditions: readonly Node[] };
export const AndNode = factory('AndNode');
export type OrNode = { readonly kind: 'OrNode'; readonly conditions: readonly Node[] };
export const OrNode = factory('OrNode');

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

export type NodeVisitor<R> = Visitor<Node, R>;

export function visitNode<R>(node: Node, visitor: NodeVisitor<R>): R {
  return visit(node, visitor);
}
