import { opensearchNodes } from '@conduit/search-store';
import { Client } from '@opensearch-project/opensearch';

/**
 * A client of the engine for tests and benchmarks that look at it from outside (stats, tasks, index clean-up):
 * the platform's own connection is not theirs to use. The caller closes it.
 */
export function engineClient(env: { readonly OPENSEARCH_URL: string }): Client {
  return new Client({ nodes: opensearchNodes(env.OPENSEARCH_URL) });
}
