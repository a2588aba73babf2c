import type { z } from 'zod';
import { didYouMean } from './did-you-mean.ts';
import { ConnectorError, type ErrorCode, type FieldProblem, toPointer } from './errors.ts';
import { valueAt } from './values.ts';

/** Where ZodProblemOptions.issue reports. */
export interface ProblemSink {
  report(inner: z.core.$ZodIssue, base: readonly (string | number)[]): void;
  add(path: readonly (string | number)[], message: string): void;
}

/** How zodProblems words and walks what it reports (every option has a default). */
export interface ZodProblemOptions {
  /** JSON pointer of the parsed value in the request (`/params`); empty for the request itself. */
  readonly prefix?: string;
  /**
   * What was parsed: it tells a missing value ("is required") from one of the wrong type ("expected a number, got a
   * string"), which zod 4 leaves out of its issues unless asked.
   */
  readonly input?: unknown;
  /** The message for an unknown key at `path` (default: "unknown field 'x'." with a did-you-mean of knownKeys). */
  readonly unknownKey?: (path: readonly (string | number)[], key: string) => string;
  /** The keys known at `path`, for the default unknownKey's did-you-mean. */
  readonly knownKeys?: (path: readonly (string | number)[]) => string[];
  /**
   * Reports an issue its own way (a union whose branch the input names, say): true when it did. `to.report` adds
   * the problems of inner issues under a path, `to.add` a problem of its own at one.
   */
  readonly issue?: (issue: z.core.$ZodIssue, path: readonly (string | number)[], to: ProblemSink) => boolean;
}

/**
 * Every zod issue as a problem with a JSON pointer, for a 400 that lists them all: unknown keys with a hint, a
 * missing value as "is required", a value of the wrong type with what was expected and what came. The one
 * implementation: connector params and the search language's params use it.
 */
export function zodProblems(error: z.ZodError, options: ZodProblemOptions = {}): FieldProblem[] {
  const { prefix = '', input, knownKeys = () => [], issue: special } = options;
  const unknownKey =
    options.unknownKey ?? ((path, key) => `unknown field '${key}'.${didYouMean(key, knownKeys(path))}`);
  const problems: FieldProblem[] = [];
  const add = (path: readonly (string | number)[], message: string) => {
    problems.push({ path: toPointer(prefix, path), message });
  };
  const report = (issue: z.core.$ZodIssue, base: readonly (string | number)[]) => {
    const path = [...base, ...issue.path].map((p) => (typeof p === 'symbol' ? String(p) : p));
    if (special?.(issue, path, { report, add })) return;
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        problems.push({ path: toPointer(prefix, [...path, key]), message: unknownKey(path, key) });
    } else if (
      (issue.code === 'invalid_type' || issue.code === 'invalid_value') &&
      valueAt(input, path) === undefined
    ) {
      problems.push({ path: toPointer(prefix, path), message: 'is required' });
    } else if (issue.code === 'invalid_type') {
      problems.push({
        path: toPointer(prefix, path),
        message: `expected ${expectedType(issue.expected)}, got ${typeOfValue(valueAt(input, path))}`,
      });
    } else if (issue.code === 'invalid_key') {
      problems.push({ path: toPointer(prefix, path), message: issue.issues[0]?.message ?? issue.message });
    } else {
      problems.push({ path: toPointer(prefix, path), message: issue.message });
    }
  };
  for (const issue of error.issues) report(issue, []);
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
    zodProblems(result.error, { prefix, knownKeys: (path) => keysAt(schema, path), input }),
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
