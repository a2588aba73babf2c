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
  type RangeOp,
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
import { OPERATORS, type Operator, type SearchFilter } from '../params/search-params-schema.ts';
import { hasWord, words } from '../text/words.ts';
import { checkValue, describe, type ValueType, valueType } from './check-value.ts';

type Path = readonly (string | number)[];
type Ctx = { readonly problems: SearchProblem[] };

const SCALARS: readonly ValueType[] = ['string', 'datetime', 'integer', 'number', 'decimal', 'boolean', 'flat'];
const RANGEABLE: readonly ValueType[] = ['string', 'datetime', 'integer', 'number', 'decimal', 'flat'];

type LeafOperator = Exclude<Operator, 'not' | 'and' | 'or'>;
/** What a leaf operator takes for one field, as the schema reads it (`{"<op>": {"<field>": <this>}}`). */
type LeafValue<O extends LeafOperator> = NonNullable<SearchFilter[O]>[string];

/** A resolved field of a leaf, with the helpers its handler needs. */
type Leaf = {
  readonly field: FieldRef;
  readonly type: ValueType;
  readonly name: string;
  readonly scope: FieldScope;
  readonly path: Path;
  readonly ctx: Ctx;
  /** Records a problem at this leaf; returns undefined so handlers can `return problem(...)`. */
  problem(message: string): undefined;
  /** The value converted for the field's type (or `t`), or undefined after recording the problem. */
  scalar(value: unknown, t?: ValueType): Scalar | undefined;
};

type LeafHandler<O extends LeafOperator> = {
  /** The field types the operator applies to (the 400 lists them when it does not). */
  readonly applies: readonly ValueType[];
  readonly build: (leaf: Leaf, value: LeafValue<O>) => Node | undefined;
};

const eqLike = (create: (field: FieldRef, value: Scalar | null) => Node): LeafHandler<'eq' | 'neq'> => ({
  applies: SCALARS,
  build: (leaf, value) => {
    const v = value === null ? null : leaf.scalar(value);
    return v === undefined ? undefined : create(leaf.field, v);
  },
});

const range = (op: RangeOp): LeafHandler<RangeOp> => ({
  applies: RANGEABLE,
  build: (leaf, value) => {
    const v = leaf.scalar(value);
    return v === undefined ? undefined : RangeNode.create({ field: leaf.field, op, value: v });
  },
});

const text = (op: 'fuzzy' | 'keyword'): LeafHandler<'fuzzy' | 'keyword'> => ({
  applies: ['string'],
  build: (leaf, value) => {
    if (!hasWord(value)) return leaf.problem(`${op} needs at least one word (letters or digits)`);
    if (words(value).length > SEARCH_LIMITS.maxTextWords) {
      return leaf.problem(`${op} takes at most ${SEARCH_LIMITS.maxTextWords} words`);
    }
    return op === 'fuzzy'
      ? FuzzyNode.create({ field: leaf.field, text: value })
      : KeywordNode.create({ field: leaf.field, text: value });
  },
});

/**
 * One handler per leaf operator of the schema. A mapped type over `Operator` (the schema's keys), so an operator
 * added to `SearchFilterSchema` does not type-check until it is handled here: it can never be dropped silently.
 */
const LEAVES: { readonly [O in LeafOperator]: LeafHandler<O> } = {
  eq: eqLike((field, value) => EqNode.create({ field, value })),
  neq: eqLike((field, value) => NeqNode.create({ field, value })),
  gt: range('gt'),
  gte: range('gte'),
  lt: range('lt'),
  lte: range('lte'),
  in: {
    applies: SCALARS,
    build: (leaf, list) => {
      const values = list.map((v, i) => {
        const checked = checkValue(leaf.type, v);
        if (checked.ok) return checked.value;
        leaf.ctx.problems.push({ path: pointer([...leaf.path, i]), message: checked.message });
        return undefined;
      });
      return values.every((v) => v !== undefined) ? InNode.create({ field: leaf.field, values }) : undefined;
    },
  },
  like: {
    applies: ['string', 'flat'],
    build: (leaf, pattern) => {
      if ([...pattern].length > SEARCH_LIMITS.maxLikePatternLength) {
        return leaf.problem(`like patterns have at most ${SEARCH_LIMITS.maxLikePatternLength} characters`);
      }
      return LikeNode.create({ field: leaf.field, pattern });
    },
  },
  fuzzy: text('fuzzy'),
  keyword: text('keyword'),
  contains: {
    applies: ['array'],
    build: (leaf, value) => {
      const items = leaf.field.storage === 'typed' ? scalarItems(leaf.field.spec) : undefined;
      if (!items) {
        return leaf.problem(
          `contains applies to arrays of strings, numbers, dates or booleans; '${leaf.name}' is not one`,
        );
      }
      const v = leaf.scalar(value, items.type);
      return v === undefined ? undefined : ContainsNode.create({ field: leaf.field, value: v });
    },
  },
  any: {
    applies: ['array'],
    build: (leaf, inner) => {
      const scope = itemScope(leaf.field);
      if (!scope)
        return leaf.problem(`any applies to arrays of objects with declared fields; '${leaf.name}' is not one`);
      return AnyNode.create({ field: leaf.field, condition: condition(inner, scope, leaf.path, leaf.ctx) });
    },
  },
};

/** The field types each leaf operator applies to (read by searchCapabilities for the client and MCP schemas). */
export const APPLIES = Object.fromEntries(Object.entries(LEAVES).map(([op, handler]) => [op, handler.applies])) as {
  readonly [O in LeafOperator]: readonly ValueType[];
};

/** The logical operators, likewise one handler each. */
const LOGIC: {
  readonly [O in Exclude<Operator, LeafOperator>]: (
    arg: NonNullable<SearchFilter[O]>,
    scope: FieldScope,
    at: Path,
    ctx: Ctx,
  ) => Node;
} = {
  not: (inner, scope, at, ctx) => NotNode.create({ condition: condition(inner, scope, at, ctx) }),
  and: (list, scope, at, ctx) =>
    AndNode.create({ conditions: list.map((child, i) => condition(child, scope, [...at, i], ctx)) }),
  or: (list, scope, at, ctx) =>
    OrNode.create({ conditions: list.map((child, i) => condition(child, scope, [...at, i], ctx)) }),
};

const isLeaf = (op: Operator): op is LeafOperator => Object.hasOwn(LEAVES, op);

/** Stage 2a: a parsed filter checked against the fields in `scope`, as a typed AST; problems go to `ctx`. */
export function validateFilter(filter: SearchFilter, scope: FieldScope, path: Path, problems: SearchProblem[]): Node {
  return condition(filter, scope, path, { problems });
}

function condition(filter: SearchFilter, scope: FieldScope, path: Path, ctx: Ctx): Node {
  const nodes: Node[] = [];
  const ops = OPERATORS.filter((op) => filter[op] !== undefined);
  if (ops.length === 0) ctx.problems.push({ path: pointer(path), message: 'a condition needs at least one operator' });
  for (const op of ops) {
    const at = [...path, op];
    if (!isLeaf(op)) {
      // The schema gives each logical operator its own argument type; `op` and `filter[op]` agree.
      const handler = LOGIC[op] as (arg: unknown, scope: FieldScope, at: Path, ctx: Ctx) => Node;
      nodes.push(handler(filter[op], scope, at, ctx));
      continue;
    }
    const fields = Object.entries(filter[op] ?? {});
    if (fields.length === 0) ctx.problems.push({ path: pointer(at), message: `${op} names no field` });
    for (const [name, value] of fields) {
      const node = leaf(op, name, value, scope, [...at, name], ctx);
      if (node) nodes.push(node);
    }
  }
  return nodes.length === 1 ? nodes[0]! : AndNode.create({ conditions: nodes });
}

function leaf(op: LeafOperator, name: string, value: unknown, scope: FieldScope, path: Path, ctx: Ctx) {
  const problem = (message: string): undefined => {
    ctx.problems.push({ path: pointer(path), message });
    return undefined;
  };
  const field = resolveField(scope, name);
  if (!field) return problem(unknownFieldMessage('field', name, knownPaths(scope.fields)));
  const type = valueType(field);
  const handler = LEAVES[op] as LeafHandler<LeafOperator>;
  if (!handler.applies.includes(type)) {
    const hint = type === 'array' ? ' (use contains or any)' : type === 'object' ? ' (use a dotted path into it)' : '';
    return problem(
      `${op} does not apply to '${name}' (${describe(type)})${hint}; it applies to ${handler.applies.map(describe).join(', ')}`,
    );
  }
  const scalar = (v: unknown, t: ValueType = type): Scalar | undefined => {
    const checked = checkValue(t, v as Scalar);
    return checked.ok ? checked.value : problem(checked.message);
  };
  // The schema read `value` for this operator: it is a LeafValue<typeof op>.
  return handler.build({ field, type, name, scope, path, ctx, problem, scalar }, value as LeafValue<LeafOperator>);
}
