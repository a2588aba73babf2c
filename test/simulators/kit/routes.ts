import type { Context, Handler } from 'hono';

/**
 * A route about one resource: `handler` gets the resource `find` locates from the request, and when there is none
 * the answer is `missing`'s (the vendor's own 404).
 */
export function withFound<T>(
  find: (c: Context) => T | undefined,
  missing: (c: Context) => Response,
  handler: (c: Context, found: T) => Response | Promise<Response>,
): Handler {
  return (c) => {
    const found = find(c);
    return found === undefined ? missing(c) : handler(c, found);
  };
}
