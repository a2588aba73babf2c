import { Hono } from 'hono';
import type { ApiDeps, ApiEnv } from '../deps.ts';
import { docsPage } from '../openapi/docs-page.ts';
import { openApiDocument } from '../openapi/document.ts';

export function healthRoutes(deps: Pick<ApiDeps, 'probes'>): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const document = openApiDocument();
  app.get('/openapi.json', (c) => c.json(document));
  app.get('/docs', (c) => c.html(docsPage()));
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const checks: Record<string, string> = {};
    await Promise.all(
      Object.entries(deps.probes).map(async ([name, probe]) => {
        try {
          await probe();
          checks[name] = 'ok';
        } catch (error) {
          checks[name] = error instanceof Error ? error.message : 'failed';
        }
      }),
    );
    const ready = Object.values(checks).every((v) => v === 'ok');
    return c.json({ status: ready ? 'ready' : 'not_ready', checks }, ready ? 200 : 503);
  });
  return app;
}
