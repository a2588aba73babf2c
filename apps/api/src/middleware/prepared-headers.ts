import type { Context } from 'hono';

/**
 * Headers a middleware puts on every response. Set before the handler, they are among those its response is built
 * with; set on a finished response, hono copies that response, turning its body into a stream written chunk by
 * chunk (measured: 13-24% of the API's CPU on a ten-record search). A Response the handler built itself (a
 * download, MCP) does not take prepared headers, so the returned function, called after `next()`, sets them on it.
 */
export function prepareHeaders(c: Context, headers: Readonly<Record<string, string>>): () => void {
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  return () => {
    for (const [name, value] of Object.entries(headers)) if (!c.res.headers.has(name)) c.header(name, value);
  };
}
