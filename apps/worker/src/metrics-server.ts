import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Logger, metricsAuthorized, type PlatformMetrics } from '@conduit/observability';

export interface MetricsServer {
  /** The port actually bound (WORKER_METRICS_PORT=0 picks a free one), or null when it could not bind. */
  readonly port: number | null;
  /** The address bound: WORKER_METRICS_HOST, loopback by default (metrics tell about every tenant's syncs). */
  readonly host: string;
  close(): Promise<void>;
}

/**
 * The worker's own GET /metrics (docs/operations.md). A port already in use (a second worker on one host) is logged and
 * the worker runs on without metrics rather than failing its real job.
 */
export async function startMetricsServer(
  metrics: PlatformMetrics,
  options: { port: number; host: string; token: string | undefined; logger: Logger },
): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    if (!metricsAuthorized(options.token, req.headers.authorization)) {
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('unauthorized\n');
      return;
    }
    metrics.scrape().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      (error: unknown) => {
        options.logger.error('metrics scrape failed', { error: String(error) });
        res.writeHead(500, { 'content-type': 'text/plain' }).end('scrape failed\n');
      },
    );
  });
  const port = await listen(server, options.host, options.port).catch((error: unknown) => {
    options.logger.error('worker metrics port unavailable; continuing without /metrics', {
      port: options.port,
      error: String(error),
    });
    return null;
  });
  if (port !== null) options.logger.info('worker metrics listening', { host: options.host, port });
  return {
    port,
    host: options.host,
    close: () =>
      new Promise<void>((resolve) => {
        if (port === null) return resolve();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
