import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import { opensearchNodes } from '@conduit/search-store';

interface Node {
  readonly agent: Agent;
  readonly host: string;
  readonly port: number;
}

/**
 * A minimal keep-alive JSON POST for the load generator. Both sides of the search benchmark (our API and raw
 * OpenSearch) go through this same client, so the generator's own cost per request is the same for both.
 * `baseUrl` may list several nodes of one cluster, comma-separated as OPENSEARCH_URL does: requests then take
 * them in turn, as the API's search transport does, each node with up to `sockets` connections of its own.
 */
export class KeepAliveClient {
  readonly #nodes: Node[];
  #next = 0;

  constructor(baseUrl: string, sockets: number) {
    this.#nodes = opensearchNodes(baseUrl).map((node) => {
      const url = new URL(node);
      return {
        agent: new Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets }),
        host: url.hostname,
        port: Number(url.port || 80),
      };
    });
    if (this.#nodes.length === 0) throw new Error(`no URL in ${JSON.stringify(baseUrl)}`);
  }

  /** POSTs `body` (already JSON) and resolves with the status, the response text and headers. */
  post(
    path: string,
    body: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; text: string; headers: IncomingHttpHeaders }> {
    const node = this.#nodes[this.#next++ % this.#nodes.length]!;
    return new Promise((resolve, reject) => {
      const req = request(
        {
          agent: node.agent,
          host: node.host,
          port: node.port,
          path,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              text: Buffer.concat(chunks).toString('utf8'),
              headers: res.headers,
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    for (const { agent } of this.#nodes) agent.destroy();
  }
}
