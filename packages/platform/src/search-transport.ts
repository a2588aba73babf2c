import { Pool } from 'undici';

/**
 * What a search answer needs is `took`, `hits.hits[]._source`/`sort` (and whatever else a body asks for, such as
 * aggregations or hits.total): the per-hit index name, id, score and routing, and the shard summary, are dropped
 * by the engine, so we neither receive nor parse them.
 */
const FILTER_PATH =
  '-_shards,-timed_out,-hits.max_score,-hits.hits._index,-hits.hits._id,-hits.hits._score,-hits.hits._routing';
const TIMEOUT_MS = 30_000;

export interface SearchAnswer {
  readonly statusCode: number;
  readonly body: unknown;
}

/**
 * The search hot path's own connection to OpenSearch: one keep-alive undici pool, the body serialized once,
 * the answer parsed with JSON.parse. The general client's per-request machinery (serializer, events, secure
 * JSON parsing of every response) was about a tenth of a search's CPU in the API; everything else keeps using
 * that client.
 */
export class SearchTransport {
  readonly #pool: Pool;
  readonly #authorization: string | undefined;

  constructor(nodeUrl: string, connections = 64) {
    const url = new URL(nodeUrl);
    this.#authorization =
      url.username || url.password
        ? `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`
        : undefined;
    this.#pool = new Pool(url.origin, {
      connections,
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
      keepAliveTimeout: 30_000,
    });
  }

  /**
   * `_search` on `index` (routed); any status comes back as is, a failed connection rejects. Dispatched with a
   * handler that collects the answer's chunks (undici's Dispatcher API): `request()` wraps each answer in a
   * readable stream only to read it whole.
   */
  search(index: string, routing: string, body: unknown): Promise<SearchAnswer> {
    return new Promise((resolve, reject) => {
      let statusCode = 0;
      const chunks: Buffer[] = [];
      this.#pool.dispatch(
        {
          method: 'POST',
          path: `/${encodeURIComponent(index)}/_search?routing=${encodeURIComponent(routing)}&filter_path=${FILTER_PATH}`,
          headers: {
            'content-type': 'application/json',
            ...(this.#authorization ? { authorization: this.#authorization } : {}),
          },
          body: JSON.stringify(body),
        },
        {
          // Required by the Dispatcher API; nothing to do before the request leaves.
          onRequestStart: () => undefined,
          onResponseStart: (_controller, status) => {
            statusCode = status;
          },
          onResponseData: (_controller, chunk) => {
            chunks.push(chunk);
          },
          onResponseEnd: () => {
            try {
              const text = Buffer.concat(chunks).toString('utf8');
              resolve({ statusCode, body: text === '' ? {} : JSON.parse(text) });
            } catch (error) {
              reject(error);
            }
          },
          onResponseError: (_controller, error) => reject(error),
        },
      );
    });
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }
}
