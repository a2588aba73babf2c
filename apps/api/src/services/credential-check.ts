import { type Connector, isConnectorError, type KindCatalog, UpstreamError } from '@conduit/connectors';
import { ApiError } from '../problem.ts';

/**
 * Proves credentials work before they are stored: one cheap live list of the first entity that needs no
 * parameters. A rejection is the caller's problem (400 naming /credentials); an upstream outage is a 502.
 */
export async function checkCredentials(connector: Connector, catalog: KindCatalog): Promise<void> {
  const probe = Object.values(catalog.entities).find((e) => e.actions.list?.safeParse({}).success);
  if (!probe) return;
  try {
    const result = await connector.execute({ entity: probe.name, action: 'list', params: {} });
    if (result.type === 'stream') await result.download.body.cancel();
  } catch (error) {
    if (error instanceof UpstreamError && error.code === 'upstream_auth_failed') {
      throw new ApiError(400, 'invalid_request', 'the upstream rejected these credentials', {
        errors: [
          { path: '/credentials', message: `rejected by the upstream (${error.upstreamStatus ?? 'no status'})` },
        ],
        cause: error,
      });
    }
    if (isConnectorError(error) && error.code === 'upstream_not_found') return;
    throw error;
  }
}
