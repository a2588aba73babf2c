import { keyEquals, parseSpan, skipWhitespace, valueEnd, walkArray, walkObject } from '@conduit/search-dsl';
import { Pool } from 'undici';
import { WaitingBatches } from './waiting-batches.ts';

/**
 * What a search answer needs is `took`, `hits.hits[]._source`/`sort` (and whatever else a body asks for, such as
 * aggregations or hits.total): the per-hit index name, id, score and routing, and the shard summary, are dropped
 * by the engine, so we neither receive nor parse them.
 */
const DROPPED_FIELDS = [
  '_shards',
  'timed_out',
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

export interface SearchAnswer {
  readonly statusCode: number;
  /** The engine's JSON answer as it came (UTF-8): search-dsl's `searchPageJson` copies records out of it. */
  readonly json: Buffer;
}

const NO_ANSWER = Buffer.from('{}');
const DOCS_OPEN = Buffer.from('{"docs":[');
const DOCS_CLOSE = Buffer.from(']}');
const COMMA = Buffer.from(',');

export interface SearchTransportOptions {
  /**
   * Searches to the engine at once (each a `_search`, or an `_msearch` of the searches that waited), and as many
   * lookups besides (each an `_mget`). What finds them all taken waits for the next one to come back, then leaves
   * with the rest that waited.
   */
  readonly requests?: number;
  /** The most searches (or lookups) one request carries. */
  readonly batch?: number;
  /**
   * The longest a search or lookup waits for a request to come back, in ms: then what waits leaves anyway, so a few
   * slow aggregations holding every request delay a quick search by this much at most.
   */
  readonly maxWaitMs?: number;
}

interface Waiting {
  readonly index: string;
  readonly routing: string;
  readonly resolve: (answer: SearchAnswer) => void;
  readonly reject: (error: unknown) => void;
}

interface WaitingSearch extends Waiting {
  /** The body as JSON, serialized as the search arrived. */
  readonly body: string;
}

interface WaitingLookup extends Waiting {
  readonly ids: readonly string[];
  readonly includes: readonly string[];
}

/**
 * The search hot path's own connection to OpenSearch: one keep-alive undici pool, each body serialized once, the
 * answer handed on as bytes (an `_msearch` answer cut into each search's, without parsing it). The general
 * client's per-request machinery (serializer, events, secure JSON parsing of every response) was about a tenth of
 * a search's CPU in the API; everything else keeps using it.
 *
 * With a request to spare, a search goes alone as `_search`, at once: one search in flight waits for nothing.
 * Under load, the searches that arrive while every request is out leave together as one `_search`-per-line
 * `_msearch` when one comes back. Each search keeps its own answer and status (the engine answers an `_msearch`
 * per search), and the engine runs them all at once (`max_concurrent_searches`), as it would have run them sent
 * one by one. What it saves is the per-request work on both sides of the connection. Side by side in
 * `bench:search` (1,000,000 invoices, 32 searches in flight, 6 query kinds, against an API sending each search
 * alone): 8–20% more searches answered per second, the API's CPU per search 0.65–0.91 of the other's on five kinds,
 * the engine's 0.92–0.97. At 8 in flight a search found a free request nearly always, and nothing changed.
 *
 * Lookups (`_mget` of documents by id) do the same with requests of their own: alone at once with one to spare,
 * and under load the lookups that waited leave as one `_mget` of all their documents, cut into each one's. Side by
 * side in `bench:search` (1,000,000 invoices, 32 in flight, each way round as A and B): `eq id` 4,064 against
 * 3,379–3,426 searches a second, `in 10 ids` 1,499–1,582 against 1,403–1,444; the API's CPU per search 0.81–0.89
 * of the other's, the engine's 0.72–0.92. At 8 in flight, nothing changed.
 */
export class SearchTransport {
  readonly #pool: Pool;
  readonly #authorization: string | undefined;
  readonly #searches: WaitingBatches<WaitingSearch>;
  readonly #lookups: WaitingBatches<WaitingLookup>;

  constructor(nodeUrl: string, options: SearchTransportOptions = {}) {
    const url = new URL(nodeUrl);
    this.#authorization =
      url.username || url.password
        ? `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`
        : undefined;
    const requests = options.requests ?? 8;
    const batches = {
      requests,
      batch: options.batch ?? 32,
      maxWaitMs: options.maxWaitMs ?? 10,
      overflow: requests * 3,
    };
    this.#searches = new WaitingBatches((searches) => this.#search(searches), batches);
    this.#lookups = new WaitingBatches((lookups) => this.#lookUp(lookups), batches);
    this.#pool = new Pool(url.origin, {
      // Every request the two may have out at once, overflow included, so undici never queues our requests.
      connections: 2 * (batches.requests + batches.overflow),
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
      keepAliveTimeout: 30_000,
    });
  }

  /** `_search` on `index` (routed); any status comes back as is, a failed connection rejects. */
  search(index: string, routing: string, body: unknown): Promise<SearchAnswer> {
    return new Promise((resolve, reject) => {
      this.#searches.add({ index, routing, body: JSON.stringify(body), resolve, reject });
    });
  }

  /**
   * `_mget` of document `ids` on `index` (routed), from the last refreshed copy as a search reads it, with the
   * source `includes`. The answer is `{"docs": […]}` with each document found as its `_source` (alone, or beside
   * `"found": true` when it went with others) and each that could not be looked up as its `error`; any status
   * comes back as is, a failed connection rejects.
   */
  lookup(index: string, routing: string, ids: readonly string[], includes: readonly string[]): Promise<SearchAnswer> {
    return new Promise((resolve, reject) => {
      this.#lookups.add({ index, routing, ids, includes, resolve, reject });
    });
  }

  async close(): Promise<void> {
    // What still waits leaves now; the pool closes once every answer is in.
    this.#searches.flush();
    this.#lookups.flush();
    await this.#pool.close();
  }

  #search(searches: WaitingSearch[]): Promise<void> {
    return searches.length === 1 ? this.#searchOne(searches[0]!) : this.#searchMany(searches);
  }

  async #searchOne(search: WaitingSearch): Promise<void> {
    try {
      const { index, routing } = search;
      const path = `/${encodeURIComponent(index)}/_search?routing=${encodeURIComponent(routing)}&filter_path=${SEARCH_FILTER_PATH}`;
      search.resolve(await this.#post(path, 'application/json', search.body));
    } catch (error) {
      search.reject(error);
    }
  }

  async #searchMany(searches: readonly WaitingSearch[]): Promise<void> {
    let lines = '';
    for (const { index, routing, body } of searches) lines += `${JSON.stringify({ index, routing })}\n${body}\n`;
    let answers: SearchAnswer[];
    try {
      const path = `/_msearch?max_concurrent_searches=${searches.length}&filter_path=${MSEARCH_FILTER_PATH}`;
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
    let answers: SearchAnswer[];
    try {
      if (lookups.length === 1) {
        const { index, routing, ids, includes } = lookups[0]!;
        const { path, body } = lookupRequest(index, routing, ids, includes);
        answers = [await this.#post(path, 'application/json', body)];
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
  async #lookUpMany(lookups: readonly WaitingLookup[]): Promise<SearchAnswer[]> {
    const docs = lookups.flatMap(({ index, routing, ids, includes }) =>
      ids.map((id) => ({ _index: index, _id: id, routing, _source: includes })),
    );
    // `found` keeps a document not found in the answer (as `{"found":false}`), so the answer's documents line up
    // with the ones asked for.
    const path = `/_mget?realtime=false&filter_path=docs.found,${LOOKUP_FILTER_PATH}`;
    const { statusCode, json } = await this.#post(path, 'application/json', JSON.stringify({ docs }));
    if (statusCode !== 200) return lookups.map(() => ({ statusCode, json }));
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
      return { statusCode, json: Buffer.concat(parts) };
    });
  }

  /** POSTs `body` and collects the answer (undici's Dispatcher API: `request()` would wrap it in a stream). */
  #post(path: string, contentType: string, body: string): Promise<SearchAnswer> {
    return new Promise((resolve, reject) => {
      let statusCode = 0;
      const chunks: Buffer[] = [];
      this.#pool.dispatch(
        {
          method: 'POST',
          path,
          headers: {
            'content-type': contentType,
            ...(this.#authorization ? { authorization: this.#authorization } : {}),
          },
          body,
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
          onResponseEnd: () => resolve({ statusCode, json: chunks.length === 0 ? NO_ANSWER : Buffer.concat(chunks) }),
          onResponseError: (_controller, error) => reject(error),
        },
      );
    });
  }
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
