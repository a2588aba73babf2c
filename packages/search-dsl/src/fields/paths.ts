import { isPlainObject } from './values.ts';

/** The value at a dotted path; a key that itself contains dots is found too (longest key first). */
export function getPath(value: unknown, path: string): unknown {
  return getSegments(value, path.split('.'));
}

function getSegments(value: unknown, segments: readonly string[]): unknown {
  if (segments.length === 0) return value;
  if (!isPlainObject(value)) return undefined;
  for (let to = segments.length; to > 0; to--) {
    const key = segments.slice(0, to).join('.');
    if (Object.hasOwn(value, key)) {
      const found = getSegments(value[key], segments.slice(to));
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Sets `value` at a dotted path, creating objects on the way (never overwriting a whole value already set). */
export function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const segments = path.split('.');
  let at: Record<string, unknown> = target;
  for (const segment of segments.slice(0, -1)) {
    const next = at[segment];
    if (next === undefined) {
      const created: Record<string, unknown> = {};
      at[segment] = created;
      at = created;
    } else if (isPlainObject(next)) at = next;
    else return;
  }
  const last = segments[segments.length - 1]!;
  if (at[last] === undefined) at[last] = value;
}
