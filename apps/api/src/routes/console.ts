import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import type { ApiEnv } from '../deps.ts';
import { ApiError } from '../problem.ts';

/** Where `pnpm --filter @conduit/console build` (run by ./dev start and ./dev test) writes the console. */
export const CONSOLE_DIST = fileURLToPath(new URL('../../../console/dist/', import.meta.url));

// The console only talks to this origin; nothing inline, nothing from elsewhere.
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'";

/** GET /console: the web console's static assets (docs/operations.md); it calls the public API with a bearer token. */
export function consoleRoutes(root = CONSOLE_DIST): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get('/console', (c) => c.redirect('/console/', 301));
  app.use('/console/*', async (c, next) => {
    if (!existsSync(root)) {
      throw new ApiError(
        503,
        'console_not_built',
        'the console is not built: run `pnpm --filter @conduit/console build`',
      );
    }
    await next();
    c.header('content-security-policy', CONTENT_SECURITY_POLICY);
    c.header('x-content-type-options', 'nosniff');
  });
  app.get(
    '/console/*',
    serveStatic({
      root,
      rewriteRequestPath: (path) => path.replace(/^\/console/, ''),
      onFound: (path, c) => {
        // Vite fingerprints assets: they never change under one name. index.html must be revalidated.
        c.header('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    }),
  );
  return app;
}
