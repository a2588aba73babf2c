import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Scalar } from '@scalar/hono-api-reference';
import { Hono } from 'hono';
import type { ApiEnv } from '../deps.ts';
import { docsPage } from '../openapi/docs-page.ts';

/** Scalar's browser bundle, shipped inside the npm package: served by us, so /docs needs no CDN or network. */
function scalarBundlePath(): string {
  const entry = createRequire(import.meta.url).resolve('@scalar/api-reference');
  return join(dirname(entry), 'browser', 'standalone.js');
}

/**
 * GET /docs: Scalar's API reference over /openapi.json, with its script served from this API
 * (GET /docs/scalar.js), default fonts, telemetry and hosted features off; GET /docs/plain: the same operations as plain HTML.
 */
export function docsRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  let bundle: Buffer | undefined;
  app.get('/docs/scalar.js', (c) => {
    bundle ??= readFileSync(scalarBundlePath());
    return c.body(new Uint8Array(bundle), 200, {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'public, max-age=86400',
    });
  });
  app.get('/docs/plain', (c) => c.html(docsPage()));
  app.get(
    '/docs',
    Scalar({
      url: '/openapi.json',
      cdn: '/docs/scalar.js',
      pageTitle: 'Conduit API reference',
      withDefaultFonts: false,
      telemetry: false,
      hideClientButton: true,
      // Features that talk to Scalar's hosted services stay off: the page works offline.
      showDeveloperTools: 'never',
      agent: { disabled: true },
      mcp: { disabled: true },
    }),
  );
  return app;
}
