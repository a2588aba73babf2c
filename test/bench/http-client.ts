import { Agent, request } from 'node:http';

/**
 * A minimal keep-alive JSON POST for the load generator. Both sides of the search benchmark (our API and raw
 * OpenSearch) go through this same client, so the generator's own cost per request is the same for both.
 */
export class KeepAliveClient {
  readonly #agent: Agent;
  readonly #host: string;
  readonly #port: number;

  constructor(baseUrl: string, sockets: number) {
    const url = new URL(baseUrl);
    this.#host = url.hostname;
    this.#port = Number(url.port || 80);
    this.#agent = new Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });
  }

  /** POSTs `body` (already JSON) and resolves with the status and the response text. */
  post(path: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          agent: this.#agent,
          host: this.#host,
          port: this.#port,
          path,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}
