import type { z } from 'zod';
import { didYouMean } from './did-you-mean.ts';
import { ConnectorError, type ErrorCode, type FieldProblem, toPointer } from './errors.ts';
import { valueAt } from './values.ts';

/**
 * Every zod issue becomes a problem with a JSON pointer under `prefix`; unknown keys get a "did you mean".
 * `input` (what was parsed) tells a missing value ("is required") from one of the wrong type ("expected a
 * number, got a string"): zod 4 leaves the input out of its issues unless asked, so without it every type
 * mismatch would read "is required".
 */
export function zodProblems(
  error: z.ZodError,
  prefix: string,
  knownKeys: (path: readonly PropertyKey[]) => string[] = () => [],
  input?: unknown,
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
    } else if (issue.code === 'invalid_type') {
      const value = valueAt(input, issue.path);
      problems.push({
        path: toPointer(prefix, issue.path),
        message:
          value === undefined ? 'is required' : `expected ${expectedType(issue.expected)}, got ${typeOfValue(value)}`,
      });
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
    zodProblems(result.error, prefix, (path) => keysAt(schema, path), input),
  );
}

/** "an integer", "a string": the type zod expected. */
function expectedType(expected: string): string {
  return withArticle(expected === 'int' ? 'integer' : expected);
}

/** The JSON type of a value: "a string", "an array", "null". */
function typeOfValue(value: unknown): string {
  if (value === null) return 'null';
  return withArticle(Array.isArray(value) ? 'array' : typeof value);
}

function withArticle(name: string): string {
  return /^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`;
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
