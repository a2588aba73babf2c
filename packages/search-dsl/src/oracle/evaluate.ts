import { type Node, type NodeVisitor, visitNode } from '../ast/nodes.ts';
import type { FieldRef } from '../fields/field-resolution.ts';
import { compare, elements, fieldValues, type OracleValue, queryValue } from './oracle-values.ts';
import { fuzzyMatch, keywordMatch, likeMatch } from './text.ts';

/**
 * Reference semantics of docs/search.md over an upstream record, independent of the compiler (see oracle-values.ts):
 * the tests' oracle, and what tells the API's answer cache whether a changed record falls inside a query's filter
 * (docs/architecture.md, "The answer cache"; the differential tests hold it to the engine's answers). Two-valued: a comparison with a missing, null or ill-typed value is false; `neq` and `not`
 * are plain negations. `scope` is the array path when `obj` is an element under `any`.
 */
export function matches(node: Node, obj: unknown, scope = ''): boolean {
  return visitNode(node, evaluator(obj, scope));
}

function evaluator(obj: unknown, scope: string): NodeVisitor<boolean> {
  const exact = (field: FieldRef) => fieldValues(obj, field, scope, true);
  const text = (field: FieldRef) => fieldValues(obj, field, scope).map(String);
  const equals = (field: FieldRef, value: string | number | boolean) => {
    const q = queryValue(field, value);
    return (v: OracleValue) => compare(v, q) === 0;
  };
  const eq = (field: FieldRef, value: string | number | boolean | null) =>
    value === null ? exact(field).length === 0 : exact(field).some(equals(field, value));
  return {
    MatchAllNode: () => true,
    EqNode: ({ field, value }) => eq(field, value),
    NeqNode: ({ field, value }) => !eq(field, value),
    RangeNode: ({ field, op, value }) => {
      const q = queryValue(field, value);
      return exact(field).some((v) => {
        const c = compare(v, q);
        return op === 'gt' ? c > 0 : op === 'gte' ? c >= 0 : op === 'lt' ? c < 0 : c <= 0;
      });
    },
    InNode: ({ field, values }) => values.some((value) => exact(field).some(equals(field, value))),
    LikeNode: ({ field, pattern }) =>
      text(field).some((v) => likeMatch(pattern, v, field.storage === 'flat' ? 'ascii' : 'unicode')),
    FuzzyNode: ({ field, text: query }) => text(field).some((v) => fuzzyMatch(query, v)),
    KeywordNode: ({ field, text: query }) => text(field).some((v) => keywordMatch(query, v)),
    ContainsNode: ({ field, value }) => exact(field).some(equals(field, value)),
    AnyNode: ({ field, condition }) =>
      elements(obj, field, scope).some((element) => matches(condition, element, field.path)),
    NotNode: ({ condition }) => !matches(condition, obj, scope),
    AndNode: ({ conditions }) => conditions.every((c) => matches(c, obj, scope)),
    OrNode: ({ conditions }) => conditions.some((c) => matches(c, obj, scope)),
  };
}
