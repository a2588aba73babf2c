import { expect } from 'vitest';
import type { z } from 'zod';
import type { KindCatalog } from '../../packages/connectors/src/core/catalog.ts';
import { ConnectorError } from '../../packages/connectors/src/core/errors.ts';
import type { FieldMap, FieldSpec } from '../../packages/connectors/src/core/field-spec.ts';
import type { ExampleCall } from '../simulators/kit/fixture.ts';

type Row = Record<string, unknown>;
type Shape = Record<string, z.ZodType>;

/** An execute call that must fail with invalid_params naming `path`; `only`: the sole problem reported. */
export interface InvalidCase {
  readonly entity: string;
  readonly action: string;
  readonly params: Record<string, unknown>;
  readonly path: string;
  readonly only?: boolean;
  /** `missing <name>`, `bound <name>=<value>`, `probe <name>=<value>`, `unknown <name>`. */
  readonly label?: string;
}

/** Awaits a call that must fail with a ConnectorError, and returns that error. */
export async function failure(promise: Promise<unknown>): Promise<ConnectorError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectorError);
  return error as ConnectorError;
}

/** The value at a dotted path (`transaction_info.transaction_id`). */
export function at(record: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v as Row | null | undefined)?.[k], record);
}

/** The record key the catalog names for `entity`, as a string. */
export function keyOf(catalog: KindCatalog, entity: string): (record: Row) => string {
  const path = catalog.entities[entity]!.recordKey;
  return (record) => String(at(record, path));
}

export interface CollectedPage {
  readonly keys: string[];
  readonly records: Row[];
  readonly checkpoint: unknown;
}

/** Reads every page (or the first `limit` pages, then stops the read as an interrupted run would). */
export async function collectPages(
  pages: AsyncIterable<{ records: Row[]; checkpoint: unknown }>,
  key: (record: Row) => string,
  limit = Number.POSITIVE_INFINITY,
): Promise<CollectedPage[]> {
  const out: CollectedPage[] = [];
  if (limit <= 0) return out;
  for await (const page of pages) {
    out.push({ keys: page.records.map(key), records: page.records, checkpoint: page.checkpoint });
    if (out.length >= limit) break;
  }
  return out;
}

/** The parameter shape of an action; objects refined as a whole keep theirs under the refinement. */
export function shapeOf(schema: unknown): Shape {
  const s = schema as { shape?: Shape; def?: { in?: { shape?: Shape } } };
  return s.shape ?? s.def?.in?.shape ?? {};
}

interface Checks {
  minValue?: number | null;
  maxValue?: number | null;
  isInt?: boolean;
  format?: string | null;
  minLength?: number | null;
  maxLength?: number | null;
}

/** The field under optional/default/nullable wrappers, where zod keeps its bounds. */
function innermost(field: z.ZodType): Checks {
  let current = field as unknown as { def?: { type?: string }; unwrap?: () => unknown };
  while (['optional', 'default', 'nullable', 'prefault'].includes(current.def?.type ?? '') && current.unwrap)
    current = current.unwrap() as typeof current;
  return current as Checks;
}

/** Values that break a numeric or length bound the field declares. */
export function boundViolations(field: z.ZodType): unknown[] {
  const n = innermost(field);
  const out: unknown[] = [];
  if (Number.isFinite(n.minValue)) out.push((n.minValue as number) - 1);
  if (Number.isFinite(n.maxValue)) out.push((n.maxValue as number) + 1);
  if (n.isInt === true || n.format === 'safeint' || n.format === 'int32') out.push(1.5);
  if (Number.isFinite(n.minLength) && (n.minLength as number) > 1) out.push('x'.repeat((n.minLength as number) - 1));
  if (Number.isFinite(n.maxLength)) out.push('x'.repeat((n.maxLength as number) + 1));
  return out;
}

/** Catalog-derived: every (entity, action, name) whose parameter is required. */
export function requiredParams(catalog: KindCatalog): { entity: string; action: string; name: string }[] {
  return Object.values(catalog.entities).flatMap((entity) =>
    Object.entries(entity.actions).flatMap(([action, schema]) =>
      Object.entries(shapeOf(schema))
        .filter(([, field]) => !field.safeParse(undefined).success)
        .map(([name]) => ({ entity: entity.name, action, name })),
    ),
  );
}

const PROBES: readonly unknown[] = [0, -1, 1.5, 'x'.repeat(600)];

/**
 * Catalog-derived invalid variants of each example: a required parameter left out, each declared bound broken,
 * probe values the field rejects (of the example value's type), and an unknown parameter.
 */
export function derivedInvalidCases(catalog: KindCatalog, examples: readonly ExampleCall[]): InvalidCase[] {
  const cases: InvalidCase[] = [];
  for (const example of examples) {
    const schema = catalog.entities[example.entity]!.actions[example.action as 'list'];
    const base = { entity: example.entity, action: example.action };
    for (const [name, field] of Object.entries(shapeOf(schema))) {
      const path = `/params/${name}`;
      if (!field.safeParse(undefined).success) {
        const { [name]: _omitted, ...params } = example.params;
        cases.push({ ...base, params, path, label: `missing ${name}` });
      }
      for (const bad of boundViolations(field))
        cases.push({ ...base, params: { ...example.params, [name]: bad }, path, label: `bound ${name}=${bad}` });
      for (const bad of PROBES) {
        if (field.safeParse(bad).success) continue;
        if (typeof bad === 'string' && typeof example.params[name] !== 'string') continue;
        if (typeof bad === 'number' && typeof example.params[name] === 'string') continue;
        cases.push({ ...base, params: { ...example.params, [name]: bad }, path, label: `probe ${name}=${bad}` });
      }
    }
    cases.push({ ...base, params: { ...example.params, per_pge: 5 }, path: '/params/per_pge', label: 'unknown' });
  }
  return cases;
}

/** Asserts that a call fails with invalid_params naming the case's path. */
export async function expectInvalid(execute: (c: InvalidCase) => Promise<unknown>, c: InvalidCase): Promise<void> {
  const label = `${c.entity} ${c.action} ${c.label ?? ''} ${JSON.stringify(c.params).slice(0, 200)}`;
  const error = await execute(c).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, label).toBeInstanceOf(ConnectorError);
  expect((error as ConnectorError).code, label).toBe('invalid_params');
  const paths = (error as ConnectorError).errors.map((p) => p.path);
  if (c.only) expect(paths, label).toEqual([c.path]);
  else expect(paths, label).toContain(c.path);
}

/** The record field spec at the catalog's record key, when the catalog declares it. */
export function keySpec(fields: FieldMap, path: string): FieldSpec | undefined {
  const [head, ...rest] = path.split('.');
  const spec = fields[head!];
  if (!spec || rest.length === 0) return spec;
  return spec.type === 'object' && spec.fields ? keySpec(spec.fields, rest.join('.')) : undefined;
}
