import { isPlainObject } from '@conduit/connectors';

/** The value at a dotted path; a key that itself contains dots is found too (longest key first). */
export function getPath(value: unknown, path: string): unknown {
  return getSegments(value, path.split('.'));
}

/** `getPath` over a path already split at its dots (split once when the same path is read from many records). */
export function getSegments(value: unknown, segments: readonly string[], from = 0): unknown {
  if (from === segments.length) return value;
  if (!isPlainObject(value)) return undefined;
  for (let to = segments.length; to > from; to--) {
    const key = to === from + 1 ? segments[from]! : segments.slice(from, to).join('.');
    if (Object.hasOwn(value, key)) {
      const found = getSegments(value[key], segments, to);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * Sets `value` at a path split at its dots, creating objects on the way (never overwriting a whole value already
 * set).
 */
export function setSegments(target: Record<string, unknown>, segments: readonly string[], value: unknown): void {
  let at: Record<string, unknown> = target;
  for (let i = 0; i < segments.length - 1; i++) {
    const segment = segments[i]!;
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
