import { type Node, type NodeVisitor, type Scalar, visitNode } from '../ast/nodes.ts';
import { likeTokens, lowerCodePoints } from '../compile/opensearch/like-pattern.ts';
import { editDistance } from '../fields/did-you-mean.ts';
import { getPath } from '../fields/paths.ts';
import { isPlainObject } from '../fields/values.ts';
import { autoFuzziness, words } from '../text/words.ts';
import { compareValues, fieldType, readValues } from './read-values.ts';

/**
 * Reference semantics of DESIGN.md §4 over an indexed document (`toIndexDocument`), for tests only.
 * Two-valued: a comparison with a missing or null value is false; `neq` and `not` are plain negations.
 */
export function matches(node: Node, doc: unknown, prefix = ''): boolean {
  return visitNode(node, evaluator(doc, prefix));
}

function evaluator(doc: unknown, prefix: string): NodeVisitor<boolean> {
  const values = (node: { field: Parameters<typeof readValues>[1] }) => readValues(doc, node.field, prefix);
  const equal = (node: Parameters<typeof values>[0], a: Scalar, b: Scalar) =>
    compareValues(fieldType(node.field), a, b) === 0;
  const eq = (node: Parameters<typeof values>[0], value: Scalar | null): boolean => {
    const vs = values(node);
    return value === null ? vs.length === 0 : vs.some((v) => equal(node, v, value));
  };
  return {
    MatchAllNode: () => true,
    EqNode: (node) => eq(node, node.value),
    NeqNode: (node) => !eq(node, node.value),
    RangeNode: (node) =>
      values(node).some((v) => {
        const c = compareValues(fieldType(node.field), v, node.value);
        return node.op === 'gt' ? c > 0 : node.op === 'gte' ? c >= 0 : node.op === 'lt' ? c < 0 : c <= 0;
      }),
    InNode: (node) => values(node).some((v) => node.values.some((w) => equal(node, v, w))),
    LikeNode: (node) =>
      values(node).some((v) =>
        likeMatches(node.pattern, String(v), node.field.storage === 'flat' ? 'ascii' : 'unicode'),
      ),
    FuzzyNode: (node) =>
      values(node).some((v) => {
        const docWords = words(String(v));
        return words(node.text).every((q) => docWords.some((d) => editDistance(q, d) <= autoFuzziness(q)));
      }),
    KeywordNode: (node) =>
      values(node).some((v) => {
        const docWords = new Set(words(String(v)));
        return words(node.text).some((q) => docWords.has(q));
      }),
    ContainsNode: (node) => values(node).some((v) => equal(node, v, node.value)),
    AnyNode: (node) => {
      const elements = getPath(doc, node.field.physical.slice(prefix.length));
      return (
        Array.isArray(elements) &&
        elements.some((e) => isPlainObject(e) && matches(node.condition, e, `${node.field.physical}.`))
      );
    },
    NotNode: (node) => !matches(node.condition, doc, prefix),
    AndNode: (node) => node.conditions.every((c) => matches(c, doc, prefix)),
    OrNode: (node) => node.conditions.some((c) => matches(c, doc, prefix)),
  };
}

/**
 * Case-insensitive like over code points. `unicode`: both sides lowercased per code point (the index's lowercase
 * normalizer); `ascii`: only ASCII letters fold (flat_object paths, Lucene's case-insensitive flag).
 */
export function likeMatches(pattern: string, text: string, mode: 'unicode' | 'ascii'): boolean {
  const fold = mode === 'unicode' ? lowerCodePoints : (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const tokens = likeTokens(fold(pattern));
  const chars = [...fold(text)];
  const memo = new Map<number, boolean>();
  const go = (i: number, j: number): boolean => {
    const id = i * (chars.length + 1) + j;
    const known = memo.get(id);
    if (known !== undefined) return known;
    let result: boolean;
    const token = tokens[i];
    if (!token) result = j === chars.length;
    else if (token.kind === 'any') result = go(i + 1, j) || (j < chars.length && go(i, j + 1));
    else if (j >= chars.length) result = false;
    else if (token.kind === 'one') result = go(i + 1, j + 1);
    else result = token.char === chars[j] && go(i + 1, j + 1);
    memo.set(id, result);
    return result;
  };
  return go(0, 0);
}
