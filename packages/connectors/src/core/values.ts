/** A JSON object (not null, not an array): what a parsed body's `{...}` is. The one object guard of the packages. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The value at `path` in parsed JSON (a zod issue's path: object keys and array indices), or undefined when the
 * path leaves what is there.
 *
 * @example valueAt({ a: [{ b: 1 }] }, ['a', 0, 'b']) // 1
 */
export function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let at = input;
  for (const segment of path) {
    if (Array.isArray(at) && typeof segment === 'number') at = at[segment];
    else if (isPlainObject(at) && typeof segment !== 'symbol' && Object.hasOwn(at, segment)) at = at[segment];
    else return undefined;
  }
  return at;
}
