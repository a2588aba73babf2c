import { keyEquals, parseSpan, skipWhitespace, valueEnd, walkArray, walkObject } from '@conduit/json-spans';
import { BalancedPool } from 'undici';
import { SearchAbandonedError, SearchQueueFullError } from './search-errors.ts';
import { WaitingBatches } from './waiting-batches.ts';

/** A read POSTed to a node: path, content type, body, and the caller's abort signal and X-Opaque-Id. */
type PostRequest = [path: string, contentType: string, body: string, signal?: AbortSignal, opaqueId?: string];
/**
 * What a search answer needs is `took`, `timed_out`, `hits.hits[]._source`/`sort` (and whatever else a body asks
 * for, such as aggregations or hits.total): the per-hit index name, id, score and routing, and the shard summary,
 * are dropped by the engine, so we neither receive nor parse them.
 */
const DROPPED_FIELDS = [
  '_shards',
  'hits.max_score',
  'hits.hits._index',
  'hits.hits._id',
  'hits.hits._score',
  'hits.hits._routing',
];
const SEARCH_FILTER_PATH = DROPPED_FIELDS.map((field) => `-${field}`).join(',');
/** The same per answer of an `_msearch`, and its own `took` (each answer has one). */
const MSEARCH_FILTER_PATH = ['-took', ...DROPPED_FIELDS.map((field) => `-responses.${field}`)].join(',');
/** A lookup's answer: what each document found holds, and why one could not be looked up. */
const LOOKUP_FILTER_PATH = 'docs._source,docs.error,error';
const TIMEOUT_MS = 30_000;
/**
 * The engine's time limit on a search unless SearchTransportOptions.timeoutMs says otherwise: long enough for the
 * costliest search the cost budget admits (docs/search-cost.md), short enough that a stuck search frees its slot.
 */
export const SEARCH_TIMEOUT_MS = 5000;
/**
 * A search that cannot read every shard fails instead of answering with part of the records (a node that died
 * mid-search): the transport then asks another node.
 */
const WHOLE_ANSWERS = 'allow_partial_search_results=false';
/** undici's and the socket's codes of a node that is down or went away mid-request. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function isUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return UNREACHABLE.has(String(code)) || UNREACHABLE.has(String(cause));
}

/** The nodes of OPENSEARCH_URL: one URL, or several comma-separated. */
export function opensearchNodes(list: string): string[] {
  return list
    .split(',')
    .map((node) => node.trim())
    .filter((node) => node !== '');
}

export interface SearchAnswer {
  readonly statusCode: number;
  /** The engine's JSON answer as it came (UTF-8): search-dsl's `searchPageJson` copies records out of it. */
  readonly json: Buffer;
}

/** A lookup's answer, with its time at the engine (an `_mget` answer carries no `took` of its own). */
export interface LookupAnswer extends SearchAnswer {
  /** In ms, from its `_mget` leaving to the engine's last byte: the time it waited here for a request left out. */
  readonly engineMs: number;
}

const NO_ANSWER = Buffer.from('{}');
const DOCS_OPEN = Buffer.from('{"docs":[');
const DOCS_CLOSE = Buffer.from(']}');
const COMMA = Buffer.from(',');

/** How one search is sent. */
export interface SearchRequestOptions {
  /** Whose search it is (the organization): the waiting line is shared fairly between tenants. */
  readonly tenant?: string;
  /**
   * A costly search (search-dsl's cost over the transport's threshold): it leaves alone, in a lane of its own with
   * at most `costlyRequests` at once, so costly searches never hold every request the engine has for cheap ones.
   */
  readonly costly?: boolean;
  /** The caller went away: still waiting, the search leaves the line; sent alone, it is cancelled in the engine. */
  readonly signal?: AbortSignal;
  /** Sent as X-Opaque-Id, so the engine's tasks (`GET _tasks`) and slow log name the request (its request id). */
  readonly opaqueId?: string;
}

export interface SearchTransportOptions {
  /**
   * Searches to the engine at once (each a `_search`, or an `_msearch` of the searches that waited), and as many
   * lookups besides (each an `_mget`). What finds them all taken waits for the next one to come back, then leaves
   * with the rest that waited.
   */
  readonly requests: number;
  /** The most searches (or lookups) one request carries. */
  readonly batch?: number;
  /**
   * The longest a search or lookup waits for a request to come back, in ms: then what waits leaves anyway, so a few
   * slow aggregations holding every request delay a quick search by this much at most.
   */
  readonly maxWaitMs?: number;
  /** Costly searches at once (each alone); more wait, in turn per tenant. */
  readonly costlyRequests?: number;
  /** Searches (or lookups) one tenant may have waiting in each line; beyond it, SearchQueueFullError. */
  readonly perTenantWaiting?: number;
  /** Costly searches one tenant may have waiting; beyond it, SearchQueueFullError. */
  readonly perTenantCostlyWaiting?: number;
  /**
   * The engine's own bound on a search, in ms: `timeout` in its body (the engine stops collecting and says
   * `timed_out`), and twice as long `cancel_after_time_interval` (the engine cancels its task).
   * https://opensearch.org/docs/latest/api-reference/search/#url-parameters
   */
  readonly timeoutMs?: number;
}

interface Waiting<Answer = SearchAnswer> {
  readonly tenant: string;
  readonly index: string;
  readonly routing: string;
  readonly resolve: (answer: Answer) => void;
  readonly reject: (error: unknown) => void;
}

interface WaitingSearch extends Waiting {
  /** The body as JSON, serialized as the search arrived. */
  readonly body: string;
  readonly signal: AbortSignal | undefined;
  readonly opaqueId: string | undefined;
}

interface WaitingLookup extends Waiting<LookupAnswer> {
  readonly ids: readonly string[];
  readonly includes: readonly string[];
}

/**
 * The search hot path's own connection to OpenSearch: one keep-alive undici pool per node, each body serialized
 * once, the answer handed on as bytes (an `_msearch` answer cut into each search's, without parsing it); everything
 * else keeps using the general client. Measurements: docs/search-cost.md.
 *
 * With a request to spare, a search goes alone as `_search`, at once: one search in flight waits for nothing.
 * Under load, the searches that arrive while every request is out leave together as one `_search`-per-line
 * `_msearch` when one comes back. Each search keeps its own answer and status (the engine answers an `_msearch`
 * per search), and the engine runs them all at once (`max_concurrent_searches`), as it would have run them sent
 * one by one. What it saves is the per-request work on both sides of the connection.
 *
 * Lookups (`_mget` of documents by id) do the same with requests of their own: alone at once with one to spare,
 * and under load the lookups that waited leave as one `_mget` of all their documents, cut into each one's.
 */
export class SearchTransport {
  /**
   * The cluster's nodes, one pool each, taken in turn by undici's BalancedPool, which sends less to a node whose
   * requests fail (https://undici.nodejs.org/#/docs/api/BalancedPool).
   */
  readonly #nodes: BalancedPool;
  readonly #nodeCount: number;
  readonly #authorization: string | undefined;
  readonly #searches: WaitingBatches<WaitingSearch>;
  readonly #costly: WaitingBatches<WaitingSearch>;
  readonly #lookups: WaitingBatches<WaitingLookup>;
  /** `timeout` and `cancel_after_time_interval` of every search (see SearchTransportOptions.timeoutMs). */
  readonly #timeout: string;
  readonly #cancelAfter: string;

  /** `nodeUrls`: one node, or several comma-separated nodes of one cluster (OPENSEARCH_URL). */
  constructor(nodeUrls: string, options: SearchTransportOptions) {
    const urls = opensearchNodes(nodeUrls).map((node) => new URL(node));
    const url = urls[0]!;
    this.#authorization =
      url.username || url.password
        ? `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`
        : undefined;
    const { requests } = options;
    const batches = {
      requests,
      batch: options.batch ?? 32,
      maxWaitMs: options.maxWaitMs ?? 10,
      overflow: requests * 3,
      perTenantWaiting: options.perTenantWaiting ?? 64,
    };
    const costly = {
      requests: options.costlyRequests ?? 2,
      batch: 1,
      maxWaitMs: 1000,
      overflow: 0,
      perTenantWaiting: options.perTenantCostlyWaiting ?? 4,
    };
    const timeoutMs = options.timeoutMs ?? SEARCH_TIMEOUT_MS;
    this.#timeout = `${timeoutMs}ms`;
    this.#cancelAfter = `${2 * timeoutMs}ms`;
    this.#searches = new WaitingBatches((searches) => this.#search(searches), batches);
    this.#costly = new WaitingBatches(([search]) => this.#searchOne(search!), costly);
    this.#lookups = new WaitingBatches((lookups) => this.#lookUp(lookups), batches);
    this.#nodes = new BalancedPool(
      urls.map((node) => node.origin),
      {
        // Every request the three may have out at once, overflow included, so undici never queues our requests.
        connections: 2 * (batches.requests + batches.overflow) + costly.requests,
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
        keepAliveTimeout: 30_000,
      },
    );
    this.#nodeCount = urls.length;
  }

  /**
   * `_search` on `index` (routed), bounded by the engine's timeout; any status comes back as is, a failed
   * connection rejects. Rejects with SearchQueueFullError when the tenant has too many waiting, and with
   * SearchAbandonedError when `options.signal` aborts first.
   */
  search(index: string, routing: string, body: unknown, options: SearchRequestOptions = {}): Promise<SearchAnswer> {
    const { tenant = '', costly = false, signal, opaqueId } = options;
    const line = costly ? this.#costly : this.#searches;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new SearchAbandonedError());
      const bounded = withTimeout(body, this.#timeout);
      const search: WaitingSearch = { tenant, index, routing, body: bounded, signal, opaqueId, resolve, reject };
      if (!line.add(search)) {
        // Roughly how long until one of its own has left: the line's length over the requests that drain it.
        return reject(new SearchQueueFullError(costly ? 2 : 1));
      }
      // Nothing waits: it left at once (a free request), and what cancels it now is the request's own signal
      // (#postTo). A listener on every search's signal was a hundredth of the API's CPU per search.
      if (line.waiting === 0) return;
      signal?.addEventListener(
        'abort',
        () => {
          if (line.remove(search)) reject(new SearchAbandonedError());
        },
        { once: true },
      );
    });
  }

  /**
   * `_mget` of document `ids` on `index` (routed), from the last refreshed copy as a search reads it, with the
   * source `includes`. The answer is `{"docs": […]}` with each document found as its `_source` (alone, or beside
   * `"found": true` when it went with others) and each that could not be looked up as its `error`; any status
   * comes back as is, a failed connection rejects.
   */
  lookup(
    index: string,
    routing: string,
    ids: readonly string[],
    includes: readonly string[],
    tenant = '',
  ): Promise<LookupAnswer> {
    return new Promise((resolve, reject) => {
      if (!this.#lookups.add({ tenant, index, routing, ids, includes, resolve, reject })) {
        reject(new SearchQueueFullError(1));
      }
    });
  }

  async close(): Promise<void> {
    // What still waits leaves now; the pool closes once every answer is in.
    this.#searches.flush();
    this.#costly.flush();
    this.#lookups.flush();
    await this.#nodes.close();
  }

  #search(searches: WaitingSearch[]): Promise<void> {
    return searches.length === 1 ? this.#searchOne(searches[0]!) : this.#searchMany(searches);
  }

  /**
   * One search alone. When its caller goes away, the request is aborted: the engine cancels a search whose HTTP
   * connection closed (OpenSearch's RestCancellableNodeClient), so an abandoned search stops using it.
   */
  async #searchOne(search: WaitingSearch): Promise<void> {
    try {
      const path = searchPath(search.index, search.routing, this.#cancelAfter);
      search.resolve(await this.#post(path, 'application/json', search.body, search.signal, search.opaqueId));
    } catch (error) {
      search.reject(search.signal?.aborted ? new SearchAbandonedError() : error);
    }
  }

  async #searchMany(searches: readonly WaitingSearch[]): Promise<void> {
    let lines = '';
    for (const { index, routing, body } of searches) {
      lines += `${JSON.stringify({ index, routing, allow_partial_search_results: false })}\n${body}\n`;
    }
    let answers: SearchAnswer[];
    try {
      const path =
        `/_msearch?max_concurrent_searches=${searches.length}` +
        `&cancel_after_time_interval=${this.#cancelAfter}&filter_path=${MSEARCH_FILTER_PATH}`;
      const { statusCode, json } = await this.#post(path, 'application/x-ndjson', lines);
      if (statusCode === 400) {
        // The engine refuses a whole `_msearch` when one body does not parse: sent alone, each gets its own answer.
        await Promise.all(searches.map((search) => this.#searchOne(search)));
        return;
      }
      if (statusCode !== 200) {
        for (const search of searches) search.resolve({ statusCode, json });
        return;
      }
      answers = msearchAnswers(json);
      if (answers.length !== searches.length) {
        throw new Error(`_msearch answered ${answers.length} responses to ${searches.length}`);
      }
    } catch (error) {
      for (const search of searches) search.reject(error);
      return;
    }
    searches.forEach((search, i) => {
      search.resolve(answers[i]!);
    });
  }

  async #lookUp(lookups: WaitingLookup[]): Promise<void> {
    let answers: LookupAnswer[];
    try {
      if (lookups.length === 1) {
        const { index, routing, ids, includes } = lookups[0]!;
        const { path, body } = lookupRequest(index, routing, ids, includes);
        const sent = performance.now();
        const answer = await this.#post(path, 'application/json', body);
        answers = [{ ...answer, engineMs: performance.now() - sent }];
      } else {
        answers = await this.#lookUpMany(lookups);
      }
    } catch (error) {
      for (const lookup of lookups) lookup.reject(error);
      return;
    }
    lookups.forEach((lookup, i) => {
      lookup.resolve(answers[i]!);
    });
  }

  /** One `_mget` of every lookup's documents; its answer cut into each lookup's, in the order they were asked. */
  async #lookUpMany(lookups: readonly WaitingLookup[]): Promise<LookupAnswer[]> {
    const docs = lookups.flatMap(({ index, routing, ids, includes }) =>
      ids.map((id) => ({ _index: index, _id: id, routing, _source: includes })),
    );
    // `found` keeps a document not found in the answer (as `{"found":false}`), so the answer's documents line up
    // with the ones asked for.
    const path = `/_mget?realtime=false&filter_path=docs.found,${LOOKUP_FILTER_PATH}`;
    const sent = performance.now();
    const { statusCode, json } = await this.#post(path, 'application/json', JSON.stringify({ docs }));
    // Each lookup of the batch was at the engine for the whole of it.
    const engineMs = performance.now() - sent;
    if (statusCode !== 200) return lookups.map(() => ({ statusCode, json, engineMs }));
    const found = mgetDocs(json);
    if (found.length !== docs.length) throw new Error(`_mget answered ${found.length} documents to ${docs.length}`);
    let first = 0;
    return lookups.map(({ ids }) => {
      const parts: Buffer[] = [DOCS_OPEN];
      for (let i = first; i < first + ids.length; i++) {
        if (i > first) parts.push(COMMA);
        parts.push(found[i]!);
      }
      parts.push(DOCS_CLOSE);
      first += ids.length;
      return { statusCode, json: Buffer.concat(parts), engineMs };
    });
  }

  /**
   * POSTs `body` to a node. Every request sent here only reads (`_search`, `_msearch`, `_mget`), so one whose node
   * could not be reached, or dropped the connection, or answered that it cannot serve now (502–504), is sent again,
   * to the next node in turn, as many times as there are nodes.
   */
  async #post(...request: PostRequest): Promise<SearchAnswer> {
    const signal = request[3];
    const count = this.#nodeCount;
    let failure: unknown;
    for (let attempt = 0; attempt < count; attempt++) {
      try {
        const answer = await this.#postTo(...request);
        if (attempt === count - 1 || answer.statusCode < 502 || answer.statusCode > 504) return answer;
        failure = answer;
      } catch (error) {
        if (signal?.aborted || !isUnreachable(error) || attempt === count - 1) throw error;
        failure = error;
      }
    }
    throw failure;
  }

  /**
   * POSTs `body` to one node and collects the answer (undici's Dispatcher API: `request()` would wrap it in a
   * stream). An aborted `signal` aborts the request, closing its connection.
   */
  #postTo(...[path, contentType, body, signal, opaqueId]: PostRequest): Promise<SearchAnswer> {
    return new Promise((resolve, reject) => {
      let statusCode = 0;
      const chunks: Buffer[] = [];
      let stopListening: () => void = () => undefined;
      const settle =
        <A>(done: (value: A) => void) =>
        (value: A) => {
          stopListening();
          done(value);
        };
      this.#nodes.dispatch(
        {
          method: 'POST',
          path,
          headers: {
            'content-type': contentType,
            ...(this.#authorization ? { authorization: this.#authorization } : {}),
            ...(opaqueId ? { 'x-opaque-id': opaqueId } : {}),
          },
          body,
        },
        {
          onRequestStart: (controller) => {
            if (!signal) return;
            const abort = () => controller.abort(new SearchAbandonedError());
            if (signal.aborted) return abort();
            signal.addEventListener('abort', abort, { once: true });
            stopListening = () => signal.removeEventListener('abort', abort);
          },
          onResponseStart: (_controller, status) => {
            statusCode = status;
          },
          onResponseData: (_controller, chunk) => {
            chunks.push(chunk);
          },
          // One chunk (most answers of a few records) is the answer: Buffer.concat would copy it.
          onResponseEnd: () =>
            settle(resolve)({
              statusCode,
              json: chunks.length === 0 ? NO_ANSWER : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks),
            }),
          onResponseError: (_controller, error) => settle(reject)(error),
        },
      );
    });
  }
}

/** The URL of a search sent alone: routed, cancelled by the engine after `cancelAfter`, whole answers only. */
function searchPath(index: string, routing: string, cancelAfter: string): string {
  return (
    `/${encodeURIComponent(index)}/_search?routing=${encodeURIComponent(routing)}` +
    `&cancel_after_time_interval=${cancelAfter}&${WHOLE_ANSWERS}&filter_path=${SEARCH_FILTER_PATH}`
  );
}

/**
 * The `_search` request of a search sent alone (SearchTransport#search with a request to spare), bounded by
 * `timeoutMs` as the transport bounds it: also what bench:search sends the engine raw, so the engine is asked
 * exactly the same on both sides.
 */
export function searchRequest(
  index: string,
  routing: string,
  body: unknown,
  timeoutMs = SEARCH_TIMEOUT_MS,
): { readonly path: string; readonly body: string } {
  return { path: searchPath(index, routing, `${2 * timeoutMs}ms`), body: withTimeout(body, `${timeoutMs}ms`) };
}

/** `body` (a search body object) as JSON with the engine's `timeout` added, unless it sets its own. */
function withTimeout(body: unknown, timeout: string): string {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || 'timeout' in body)
    return JSON.stringify(body);
  return JSON.stringify({ timeout, ...body });
}

/** The `_mget` request of a lookup (SearchTransport#lookup): also what bench:search sends the engine raw. */
export function lookupRequest(
  index: string,
  routing: string,
  ids: readonly string[],
  includes: readonly string[],
): { readonly path: string; readonly body: string } {
  return {
    path:
      `/${encodeURIComponent(index)}/_mget?routing=${encodeURIComponent(routing)}&realtime=false` +
      `&_source_includes=${includes.map(encodeURIComponent).join(',')}&filter_path=${LOOKUP_FILTER_PATH}`,
    body: JSON.stringify({ ids }),
  };
}

/**
 * Each search's answer in an `_msearch` answer, as a slice of its bytes. Each carries its own status, which a lone
 * `_search` answers in the status line instead (the member stays in the slice; readers ignore it).
 */
function msearchAnswers(json: Buffer): SearchAnswer[] {
  const answers: SearchAnswer[] = [];
  walkObject(json, skipWhitespace(json, 0), (keyStart, keyEnd, start) => {
    if (!keyEquals(json, keyStart, keyEnd, 'responses')) return valueEnd(json, start);
    return walkArray(json, start, (responseStart) => {
      let statusCode = 200;
      const end = walkObject(json, responseStart, (memberStart, memberKeyEnd, valueStart) => {
        const memberEnd = valueEnd(json, valueStart);
        if (keyEquals(json, memberStart, memberKeyEnd, 'status')) {
          const status = parseSpan(json, { start: valueStart, end: memberEnd });
          if (typeof status === 'number') statusCode = status;
        }
        return memberEnd;
      });
      answers.push({ statusCode, json: json.subarray(responseStart, end) });
      return end;
    });
  });
  return answers;
}

/** Each document of an `_mget` answer, as a slice of its bytes. */
function mgetDocs(json: Buffer): Buffer[] {
  const docs: Buffer[] = [];
  walkObject(json, skipWhitespace(json, 0), (keyStart, keyEnd, start) => {
    if (!keyEquals(json, keyStart, keyEnd, 'docs')) return valueEnd(json, start);
    return walkArray(json, start, (docStart) => {
      const docEnd = valueEnd(json, docStart);
      docs.push(json.subarray(docStart, docEnd));
      return docEnd;
    });
  });
  return docs;
}
