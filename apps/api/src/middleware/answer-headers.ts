import type { Context, Next } from 'hono';

/**
 * Runs the rest of the chain with `headers` on its answer, through hono's own `c.header`: set before `next()`, they
 * are among the headers of every response the handler builds with the context (`c.json`, `c.body`, a problem);
 * a Response the handler built itself gets them after `next()`, unless it brings its own
 * (https://hono.dev/docs/api/context#header).
 */
export async function withAnswerHeaders(
  c: Context,
  next: Next,
  headers: Readonly<Record<string, string>>,
): Promise<void> {
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  await next();
  for (const [name, value] of Object.entries(headers)) if (!c.res.headers.has(name)) c.header(name, value);
}
