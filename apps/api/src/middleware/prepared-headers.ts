import { ServerResponse } from 'node:http';
import type { Context, Next } from 'hono';

/**
 * Headers a middleware puts on every response. Served by Node (@hono/node-server hands its ServerResponse to the app
 * as `c.env.outgoing`), they are set on that response at once: whatever the handler answers (a page, a problem, a
 * download, MCP), Node writes them with it, and the headers the answer brings itself win
 * (https://nodejs.org/api/http.html#responsewriteheadstatuscode-statusmessage-headers). The answer then needs no
 * Headers object of its own: building one, and copying it into the response, was a twentieth of a search's CPU.
 *
 * Called in-process (`app.fetch`: tests, MCP's tool calls), there is no Node response: the headers are set before the
 * handler, so they are among those its response is built with (set on a finished response, hono copies that
 * response, turning its body into a stream written chunk by chunk: 13-24% of the API's CPU on a ten-record search).
 * A Response the handler built itself does not take them, so the returned function, called after `next()`, sets
 * them on it; served by Node, nothing is left to do after `next()` and the answer is undefined.
 */
export function prepareHeaders(c: Context, headers: Readonly<Record<string, string>>): (() => void) | undefined {
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
  if (outgoing instanceof ServerResponse) {
    for (const name in headers) outgoing.setHeader(name, headers[name]!);
    return undefined;
  }
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  return () => {
    for (const [name, value] of Object.entries(headers)) if (!c.res.headers.has(name)) c.header(name, value);
  };
}

/**
 * `next()`, then `after` if there is one. A middleware that returns this instead of awaiting `next()` is no async
 * step of its own when served by Node (hono awaits what a middleware returns: https://hono.dev/docs/guides/middleware).
 */
export function nextThen(next: Next, after: (() => void) | undefined): Promise<void> {
  return after ? next().then(after) : next();
}
