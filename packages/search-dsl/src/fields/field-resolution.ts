import type { FieldMap, FieldSpec, ScalarType } from '@conduit/connectors';
import { DECIMAL_SUBFIELDS, toScaledDecimal } from './decimal.ts';

/**
 * The one place that knows how a logical field path maps to physical index fields. The mapping generator,
 * the document builder, the validator and the compiler all go through it, so they cannot drift apart.
 *
 * Layout of an indexed document (see `toIndexDocument`):
 * - a `string` field `name` is a `keyword` at `name` (eq/in/range/sort), analysed text at `name.text`
 *   (fuzzy/keyword) and a `wildcard` field at `name.wc` (like);
 * - other scalars sit at their own name; an object with declared sub-fields is an `object` whose declared
 *   sub-fields are typed; an object without declared sub-fields is a `flat_object`;
 * - a top-level object with declared sub-fields is also copied whole into the `flat_object` `_flat.<name>`, so its
 *   undeclared internals stay filterable by dotted path;
 * - an array of scalars is a multi-valued field of the item type; an array of objects with declared sub-fields
 *   is `nested` (for `any`); other arrays are kept in results only.
 */
export type FieldRef =
  /** A declared field; `spec` says its type. */
  | { readonly storage: 'typed'; readonly path: string; readonly physical: string; readonly spec: FieldSpec }
  /** A path inside an object's undeclared internals: values compare as strings (see README). */
  | {
      readonly storage: 'flat';
      readonly path: string;
      readonly physical: string;
      /** The `flat_object` field, and the dotted path inside it. */
      readonly root: string;
      readonly subpath: string;
    };

/** Where paths are looked up: the entity's searchable fields, or the item fields of an array under `any`. */
export type FieldScope = {
  readonly fields: FieldMap;
  readonly physicalPrefix: string;
  readonly logicalPrefix: string;
  /** Physical prefix of the whole-object flat copies of top-level typed objects; undefined inside `any`. */
  readonly flatPrefix: string | undefined;
};

export const INTERNAL_FIELDS = Object.freeze({
  connectorId: '_connector_id',
  key: '_key',
  record: '_record',
  flat: '_flat',
  /** Set on a removed record's tombstone (docs/changes.md): never searchable, counted or looked up. */
  deleted: '_deleted',
});

export const STRING_SUBFIELDS = Object.freeze({ text: 'text', wildcard: 'wc' });

export function rootScope(fields: FieldMap): FieldScope {
  return { fields, physicalPrefix: '', logicalPrefix: '', flatPrefix: `${INTERNAL_FIELDS.flat}.` };
}

/** The scope of the elements of an array of typed objects, or undefined when `ref` is not one. */
export function itemScope(ref: FieldRef): FieldScope | undefined {
  const items = ref.storage === 'typed' && ref.spec.type === 'array' ? ref.spec.items : undefined;
  if (items?.type !== 'object' || !items.fields) return undefined;
  return {
    fields: items.fields,
    physicalPrefix: `${ref.physical}.`,
    logicalPrefix: `${ref.path}.`,
    flatPrefix: undefined,
  };
}

export function resolveField(scope: FieldScope, path: string): FieldRef | undefined {
  const segments = path.split('.');
  if (segments.some((s) => s === '')) return undefined;
  return walk(scope.fields, segments, 0, scope.physicalPrefix, scope.flatPrefix, scope.logicalPrefix);
}

/** Where undeclared paths of the current typed object go: the flat_object field and the path inside it so far. */
type FlatCopy = { readonly root: string; readonly inner: string } | undefined;

function walk(
  fields: FieldMap,
  segments: readonly string[],
  from: number,
  physicalPrefix: string,
  flatPrefix: string | undefined,
  logicalPrefix: string,
  copy: FlatCopy = undefined,
): FieldRef | undefined {
  // Longest match first, so a catalog key that itself contains a dot still resolves.
  for (let to = segments.length; to > from; to--) {
    const name = segments.slice(from, to).join('.');
    if (!Object.hasOwn(fields, name)) continue;
    const spec = fields[name]!;
    const physical = physicalPrefix + name;
    const path = logicalPrefix + segments.slice(0, to).join('.');
    if (to === segments.length) return { storage: 'typed', path, physical, spec };
    if (spec.type !== 'object') return undefined;
    const rest = segments.slice(to).join('.');
    const fullPath = logicalPrefix + segments.join('.');
    if (!spec.fields) return flat(fullPath, physical, rest);
    const inner: FlatCopy = copy
      ? { root: copy.root, inner: `${copy.inner}${name}.` }
      : flatPrefix === undefined
        ? undefined
        : { root: flatPrefix + name, inner: '' };
    const found = walk(spec.fields, segments, to, `${physical}.`, undefined, '', inner);
    if (found) return { ...found, path: fullPath };
    return inner === undefined ? undefined : flat(fullPath, inner.root, inner.inner + rest);
  }
  return undefined;
}

function flat(path: string, root: string, subpath: string): FieldRef {
  return { storage: 'flat', path, physical: `${root}.${subpath}`, root, subpath };
}

/** Declared paths of a scope (objects and their declared sub-fields), for "did you mean" and default `fields`. */
export function knownPaths(fields: FieldMap, prefix = ''): string[] {
  const out: string[] = [];
  for (const [name, spec] of Object.entries(fields)) {
    out.push(prefix + name);
    if (spec.type === 'object' && spec.fields) out.push(...knownPaths(spec.fields, `${prefix}${name}.`));
  }
  return out;
}

/** The scalar type of a typed field, or of the items of a typed array of scalars; undefined otherwise. */
export function scalarTypeOf(ref: FieldRef): ScalarType | undefined {
  if (ref.storage === 'flat') return undefined;
  const spec = ref.spec.type === 'array' ? ref.spec.items : ref.spec;
  return spec && spec.type !== 'object' && spec.type !== 'array' ? spec.type : undefined;
}

/** Physical field for exact match, range and sort (decimals: their scaled integer, see decimal.ts). */
export function exactField(ref: FieldRef): string {
  return scalarTypeOf(ref) === 'decimal' ? `${ref.physical}.${DECIMAL_SUBFIELDS.scaled}` : ref.physical;
}

/** A validated query value in the form `exactField` holds (decimals: the scaled integer as a decimal string). */
export function physicalValue<T>(ref: FieldRef, value: T): T | string {
  if (scalarTypeOf(ref) !== 'decimal') return value;
  const scaled = toScaledDecimal(value);
  if (scaled === undefined) throw new Error(`not a validated decimal: ${String(value)}`);
  return scaled.toString();
}

/** Physical fields of a decimal's units/fraction split, which sums add exactly (see decimal.ts). */
export function decimalSumFields(ref: FieldRef): {
  readonly units: string;
  readonly fraction: string;
  readonly scale: string;
} {
  return {
    units: `${ref.physical}.${DECIMAL_SUBFIELDS.units}`,
    fraction: `${ref.physical}.${DECIMAL_SUBFIELDS.fraction}`,
    scale: `${ref.physical}.${DECIMAL_SUBFIELDS.scale}`,
  };
}

/** Physical field for `like` (a `wildcard` sub-field of strings; flat paths are matched directly). */
export function wildcardField(ref: FieldRef): string {
  return ref.storage === 'flat' ? ref.physical : `${ref.physical}.${STRING_SUBFIELDS.wildcard}`;
}

/** Physical field for `fuzzy` and `keyword` (analysed text). */
export function textField(ref: FieldRef): string {
  return `${ref.physical}.${STRING_SUBFIELDS.text}`;
}

/** The item spec of an array field whose items are scalars, or undefined. */
export function scalarItems(spec: FieldSpec): FieldSpec | undefined {
  if (spec.type !== 'array' || !spec.items) return undefined;
  return spec.items.type === 'object' || spec.items.type === 'array' ? undefined : spec.items;
}
