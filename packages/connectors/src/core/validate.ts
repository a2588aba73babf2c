import type { z } from 'zod';
import { didYouMean } from './did-you-mean.ts';
import { ConnectorError, type ErrorCode, type FieldProblem, toPointer } from './errors.ts';

/** Every zod issue becomes a problem with a JSON pointer under `prefix`; unknown keys get a "did you mean". */
export function zodProblems(
  error: z.ZodError,
  prefix: string,
  knownKeys: (path: readonly PropertyKey[]) => string[] = () => [],
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        problems.push({
          path: toPointer(prefix, [...issue.path, key]),
          message: `unknown field '${key}'.${didYouMean(key, knownKeys(issue.path))}`,
        });
      }
    } else if (issue.code === 'invalid_type' && issue.input === undefined) {
      problems.push({ path: toPointer(prefix, issue.path), message: 'is required' });
    } else {
      problems.push({ path: toPointer(prefix, issue.path), message: issue.message });
    }
  }
  return problems;
}

/** Parses `input` with `schema` or throws a ConnectorError with `code` listing every problem. */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  input: unknown,
  prefix: string,
  code: ErrorCode,
  title: string,
): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ConnectorError(
    code,
    title,
    zodProblems(result.error, prefix, (path) => keysAt(schema, path)),
  );
}

/** Every problem of a zod parse as field problems (an empty list when it passes). */
export function problemsOf(parse: () => unknown): FieldProblem[] {
  try {
    parse();
    return [];
  } catch (error) {
    return [...((error as { errors?: FieldProblem[] }).errors ?? [])];
  }
}

/** The keys an object schema accepts at `path` (for hints); empty when the shape is not a plain object. */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: unknown = schema;
  for (const segment of path) {
    const shape = shapeOf(current);
    if (!shape || typeof segment !== 'string') return [];
    current = shape[segment];
  }
  return Object.keys(shapeOf(current) ?? {});
}

function shapeOf(schema: unknown): Record<string, unknown> | undefined {
  const def = (
    schema as { def?: { type?: string; shape?: Record<string, unknown>; innerType?: unknown; in?: unknown } }
  )?.def;
  if (!def) return undefined;
  if (def.type === 'object') return def.shape;
  if (def.type === 'optional' || def.type === 'nullable' || def.type === 'default') return shapeOf(def.innerType);
  if (def.type === 'pipe') return shapeOf(def.in);
  return undefined;
}
