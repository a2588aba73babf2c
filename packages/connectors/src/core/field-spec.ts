/**
 * Field types of upstream records, as the catalog states them. One vocabulary serves record shapes,
 * searchable fields (validation in search-dsl) and index mappings (generated from these specs).
 *
 * `datetime` is a string that holds an instant; it is kept separate from `string` so that searches compare
 * instants whatever the upstream format, and mappings index it as a date.
 *
 * `decimal` is an amount that the upstream sends as a decimal string (`"8387.12"`): results return the upstream's
 * string unchanged, while search compares, sorts and sums it as an exact decimal (never as text, never as a binary
 * float), see search-dsl's README.
 */
export type ScalarType = 'string' | 'datetime' | 'integer' | 'number' | 'decimal' | 'boolean';

export type FieldSpec =
  | { readonly type: ScalarType; readonly nullable: boolean; readonly enum?: readonly string[] }
  | {
      readonly type: 'object';
      readonly nullable: boolean;
      /** Sub-fields the catalog lists; anything else inside the object is unknown and kept as-is. */
      readonly fields?: Readonly<Record<string, FieldSpec>>;
    }
  | { readonly type: 'array'; readonly nullable: boolean; readonly items?: FieldSpec };

export type FieldMap = Readonly<Record<string, FieldSpec>>;

type Options = { nullable?: boolean };

/**
 * Builders that keep catalogs short: `t.string()`, `t.object({ id: t.string() })`, `t.array(t.string())`.
 * Fields are nullable unless `{ nullable: false }`; `notNull(...)` marks identifiers.
 */
export const t = {
  string: (o: Options & { enum?: readonly string[] } = {}): FieldSpec =>
    o.enum
      ? { type: 'string', nullable: o.nullable ?? true, enum: o.enum }
      : { type: 'string', nullable: o.nullable ?? true },
  datetime: (o: Options = {}): FieldSpec => ({ type: 'datetime', nullable: o.nullable ?? true }),
  integer: (o: Options = {}): FieldSpec => ({ type: 'integer', nullable: o.nullable ?? true }),
  number: (o: Options = {}): FieldSpec => ({ type: 'number', nullable: o.nullable ?? true }),
  decimal: (o: Options = {}): FieldSpec => ({ type: 'decimal', nullable: o.nullable ?? true }),
  boolean: (o: Options = {}): FieldSpec => ({ type: 'boolean', nullable: o.nullable ?? true }),
  object: (fields?: FieldMap, o: Options = {}): FieldSpec =>
    fields
      ? { type: 'object', nullable: o.nullable ?? true, fields }
      : { type: 'object', nullable: o.nullable ?? true },
  array: (items?: FieldSpec, o: Options = {}): FieldSpec =>
    items ? { type: 'array', nullable: o.nullable ?? true, items } : { type: 'array', nullable: o.nullable ?? true },
} as const;

export function notNull(spec: FieldSpec): FieldSpec {
  return { ...spec, nullable: false };
}

/** Applies a kind's nullability convention (the catalog's "Conventions") to every top-level field. */
export function withNullability(fields: FieldMap, nullable: boolean, except: readonly string[] = []): FieldMap {
  return Object.fromEntries(
    Object.entries(fields).map(([name, spec]) => [
      name,
      { ...spec, nullable: except.includes(name) ? !nullable : nullable },
    ]),
  );
}

/** Picks fields by name from a record map, to declare "Searchable: all except x" without repeating types. */
export function pick(fields: FieldMap, names: readonly string[]): FieldMap {
  return Object.fromEntries(
    names.map((name) => {
      const spec = fields[name];
      if (!spec) throw new Error(`pick: unknown field ${name}`);
      return [name, spec];
    }),
  );
}

export function omit(fields: FieldMap, names: readonly string[]): FieldMap {
  for (const name of names) if (!(name in fields)) throw new Error(`omit: unknown field ${name}`);
  return Object.fromEntries(Object.entries(fields).filter(([name]) => !names.includes(name)));
}
