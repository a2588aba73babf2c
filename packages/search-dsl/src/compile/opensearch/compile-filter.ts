import { type Node, type NodeVisitor, type Scalar, visitNode } from '../../ast/nodes.ts';
import { exactField, type FieldRef, physicalValue, textField, wildcardField } from '../../fields/field-resolution.ts';
import { likeToRegexp, likeToWildcard } from './like-pattern.ts';

/** A clause of the OpenSearch query DSL. */
export type QueryClause = { readonly [key: string]: unknown };

/**
 * Stage 3: the typed AST as an OpenSearch query. Every leaf is two-valued (a missing or null value simply does
 * not match), so `not` is `must_not` and `neq` matches nulls, as docs/search.md asks.
 */
export function compileFilter(node: Node): QueryClause {
  return visitNode(node, compiler);
}

/** "Has a value": `exists` on typed fields; flat_object sub-paths do not support `exists`, a `*` wildcard does. */
function exists(field: FieldRef): QueryClause {
  return field.storage === 'flat'
    ? { wildcard: { [field.physical]: { value: '*' } } }
    : { exists: { field: exactField(field) } };
}

const not = (clause: QueryClause): QueryClause => ({ bool: { must_not: [clause] } });
const term = (field: FieldRef, value: Scalar): QueryClause => ({
  term: { [exactField(field)]: physicalValue(field, value) },
});

const compiler: NodeVisitor<QueryClause> = {
  MatchAllNode: () => ({ match_all: {} }),
  EqNode: ({ field, value }) => (value === null ? not(exists(field)) : term(field, value)),
  NeqNode: ({ field, value }) => (value === null ? exists(field) : not(term(field, value))),
  RangeNode: ({ field, op, value }) => ({ range: { [exactField(field)]: { [op]: physicalValue(field, value) } } }),
  InNode: ({ field, values }) => ({ terms: { [exactField(field)]: values.map((v) => physicalValue(field, v)) } }),
  LikeNode: ({ field, pattern }) =>
    field.storage === 'flat'
      ? // flat_object values are not normalised: case-insensitive for ASCII letters only (Lucene's flag).
        { wildcard: { [wildcardField(field)]: { value: likeToWildcard(pattern), case_insensitive: true } } }
      : { regexp: { [wildcardField(field)]: { value: likeToRegexp(pattern), flags: 'NONE' } } },
  FuzzyNode: ({ field, text }) => ({
    match: {
      [textField(field)]: {
        query: text,
        operator: 'and',
        fuzziness: 'AUTO',
        fuzzy_transpositions: true,
        prefix_length: 0,
        // Large enough that no close word is dropped from the expansion on our vocabularies.
        max_expansions: 1024,
      },
    },
  }),
  KeywordNode: ({ field, text }) => ({ match: { [textField(field)]: { query: text, operator: 'or' } } }),
  ContainsNode: ({ field, value }) => term(field, value),
  AnyNode: ({ field, condition }) => ({
    nested: { path: field.physical, query: compileFilter(condition) },
  }),
  NotNode: ({ condition }) => not(compileFilter(condition)),
  AndNode: ({ conditions }) => ({ bool: { filter: conditions.map(compileFilter) } }),
  OrNode: ({ conditions }) => ({ bool: { should: conditions.map(compileFilter), minimum_should_match: 1 } }),
};
