import type { FieldSpec } from '@conduit/connectors';
import {
  AndNode,
  AnyNode,
  ContainsNode,
  EqNode,
  FuzzyNode,
  InNode,
  KeywordNode,
  LikeNode,
  NeqNode,
  type Node,
  NotNode,
  OrNode,
  RangeNode,
  type Scalar,
} from '../ast/nodes.ts';
import { pointer, type SearchProblem } from '../errors.ts';
import { unknownFieldMessage } from '../fields/did-you-mean.ts';
import {
  type FieldRef,
  type FieldScope,
  itemScope,
  knownPaths,
  resolveField,
  scalarItems,
} from '../fields/field-resolution.ts';
import { SEARCH_LIMITS } from '../limits.ts';
import type { Operator, SearchFilter } from '../params/search-params-schema.ts';
import { hasWord, words } from '../text/words.ts';
import { checkValue, describe, type ValueType, valueType } from './check-value.ts';

type Path = readonly (string | number)[];
type Ctx = { readonly problems: SearchProblem[] };

const SCALARS: readonly ValueType[] = ['string', 'datetime', 'integer', 'number', 'decimal', 'boolean', 'flat'];
const RANGEABLE: readonly ValueType[] = ['string', 'datetime', 'integer', 'number', 'decimal', 'flat'];

/** Which operators apply to which field types (the message lists them when one does not). */
const APPLIES: Readonly<Record<Exclude<Operator, 'not' | 'and' | 'or'>, readonly ValueType[]>> = {
  eq: SCALARS,
  neq: SCALARS,
  gt: RANGEABLE,
  gte: RANGEABLE,
  lt: RANGEABLE,
  lte: RANGEABLE,
  in: SCALARS,
  like: ['string', 'flat'],
  fuzzy: ['string'],
  keyword: ['string'],
  contains: ['array'],
  any: ['array'],
};

/** Stage 2a: a parsed filter checked against the fields in `scope`, as a typed AST; problems go to `ctx`. */
export function validateFilter(filter: SearchFilter, scope: FieldScope, path: Path, problems: SearchProblem[]): Node {
  return condition(filter, scope, path, { problems });
}

function condition(filter: SearchFilter, scope: FieldScope, path: Path, ctx: Ctx): Node {
  const nodes: Node[] = [];
  const entries = Object.entries(filter).filter(([, arg]) => arg !== undefined);
  if (entries.length === 0)
    ctx.problems.push({ path: pointer(path), message: 'a condition needs at least one operator' });
  for (const [op, arg] of entries) {
    const at = [...path, op];
    if (op === 'not') nodes.push(NotNode.create({ condition: condition(arg as SearchFilter, scope, at, ctx) }));
    else if (op === 'and' || op === 'or') {
      const children = (arg as SearchFilter[]).map((child, i) => condition(child, scope, [...at, i], ctx));
      nodes.push(op === 'and' ? AndNode.create({ conditions: children }) : OrNode.create({ conditions: children }));
    } else {
      const fields = Object.entries(arg as Record<string, unknown>);
      if (fields.length === 0) ctx.problems.push({ path: pointer(at), message: `${op} names no field` });
      for (const [name, value] of fields) {
        const node = leaf(op as keyof typeof APPLIES, name, value, scope, [...at, name], ctx);
        if (node) nodes.push(node);
      }
    }
  }
  return nodes.length === 1 ? nodes[0]! : AndNode.create({ conditions: nodes });
}

function leaf(op: keyof typeof APPLIES, name: string, value: unknown, scope: FieldScope, path: Path, ctx: Ctx) {
  const problem = (message: string) => {
    ctx.problems.push({ path: pointer(path), message });
    return undefined;
  };
  const field = resolveField(scope, name);
  if (!field) return problem(unknownFieldMessage('field', name, knownPaths(scope.fields)));
  const type = valueType(field);
  if (!APPLIES[op].includes(type)) {
    const hint = type === 'array' ? ' (use contains or any)' : type === 'object' ? ' (use a dotted path into it)' : '';
    return problem(
      `${op} does not apply to '${name}' (${describe(type)})${hint}; it applies to ${APPLIES[op].map(describe).join(', ')}`,
    );
  }
  const scalar = (v: unknown, t: ValueType = type): Scalar | undefined => {
    const checked = checkValue(t, v as Scalar);
    return checked.ok ? checked.value : problem(checked.message);
  };
  switch (op) {
    case 'eq':
    case 'neq': {
      const v = value === null ? null : scalar(value);
      if (v === undefined) return undefined;
      return op === 'eq' ? EqNode.create({ field, value: v }) : NeqNode.create({ field, value: v });
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const v = scalar(value);
      return v === undefined ? undefined : RangeNode.create({ field, op, value: v });
    }
    case 'in': {
      const values = (value as unknown[]).map((v, i) => {
        const checked = checkValue(type, v as Scalar);
        if (checked.ok) return checked.value;
        ctx.problems.push({ path: pointer([...path, i]), message: checked.message });
        return undefined;
      });
      return values.every((v) => v !== undefined) ? InNode.create({ field, values }) : undefined;
    }
    case 'like': {
      const pattern = value as string;
      if ([...pattern].length > SEARCH_LIMITS.maxLikePatternLength) {
        return problem(`like patterns have at most ${SEARCH_LIMITS.maxLikePatternLength} characters`);
      }
      return LikeNode.create({ field, pattern });
    }
    case 'fuzzy':
    case 'keyword': {
      const text = value as string;
      if (!hasWord(text)) return problem(`${op} needs at least one word (letters or digits)`);
      if (words(text).length > SEARCH_LIMITS.maxTextWords) {
        return problem(`${op} takes at most ${SEARCH_LIMITS.maxTextWords} words`);
      }
      return op === 'fuzzy' ? FuzzyNode.create({ field, text }) : KeywordNode.create({ field, text });
    }
    case 'contains': {
      const items = scalarItems((field as FieldRef & { spec: FieldSpec }).spec);
      if (!items)
        return problem(`contains applies to arrays of strings, numbers, dates or booleans; '${name}' is not one`);
      const v = scalar(value, items.type);
      return v === undefined ? undefined : ContainsNode.create({ field, value: v });
    }
    case 'any': {
      const inner = itemScope(field);
      if (!inner) return problem(`any applies to arrays of objects with declared fields; '${name}' is not one`);
      return AnyNode.create({ field, condition: condition(value as SearchFilter, inner, path, ctx) });
    }
  }
}
