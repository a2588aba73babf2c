import type { ChangeEvent, ChangesPage, DeliveriesPage, WebhookEndpoint } from './generated/api.ts';
import type { Transport } from './transport.ts';

export type ChangeType = ChangeEvent['type'];

export interface ChangesOptions {
  /** A `meta.cursor` (or an event's `cursor`) to continue after; `latest` for only what comes next. */
  readonly after?: string;
  readonly entity?: string;
  /** Events per request (1-1000). */
  readonly limit?: number;
  /**
   * Keep waiting for new events once the feed is read, pushed by the server as they are applied (Server-Sent Events,
   * GET .../changes/stream), until `signal` aborts.
   */
  readonly follow?: boolean;
  readonly signal?: AbortSignal;
}

/** An event as the iterator hands it out, with the cursor that resumes right after it. */
export type ChangeEventAt = ChangeEvent & { readonly cursor: string };

export function changesQuery(options: ChangesOptions): string {
  const query = new URLSearchParams();
  if (options.after !== undefined) query.set('after', options.after);
  if (options.entity !== undefined) query.set('entity', options.entity);
  if (options.limit !== undefined) query.set('limit', String(options.limit));
  const text = query.toString();
  return text ? `?${text}` : '';
}

/** Every event of the feed from `options.after`, page after page; with `follow`, then every new one as it comes. */
export async function* iterateChanges(
  transport: Transport,
  path: string,
  options: ChangesOptions,
): AsyncGenerator<ChangeEventAt> {
  let after = options.after;
  for (;;) {
    const page = await transport.json<ChangesPage>('GET', `${path}${changesQuery({ ...options, after })}`, {
      safe: true,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    for (const event of page.data) yield { ...event, cursor: event.id.slice(event.id.lastIndexOf('.') + 1) };
    after = page.meta.cursor;
    if (page.meta.has_more) continue;
    if (!options.follow || options.signal?.aborted) return;
    yield* followChanges(transport, path, { ...options, after });
    return;
  }
}

/** How long a dropped stream waits before it connects again (doubling to 30 s while it keeps failing). */
const RECONNECT_MS = 500;

/**
 * Every change after `options.after` (`latest`: what comes next), live, over the feed's Server-Sent Events. A stream
 * that drops is opened again with Last-Event-ID = the last event handed out, so nothing is missed or repeated; it
 * ends when `signal` aborts. A refusal (an unknown connector, an expired cursor) is thrown as ConduitProblem.
 */
export async function* followChanges(
  transport: Transport,
  path: string,
  options: Pick<ChangesOptions, 'after' | 'entity' | 'signal'>,
): AsyncGenerator<ChangeEventAt> {
  const { signal } = options;
  let last = options.after;
  let failures = 0;
  while (!signal?.aborted) {
    const resume: Record<string, string> = last !== undefined && last !== 'latest' ? { 'last-event-id': last } : {};
    try {
      const response = await transport.request('GET', `${path}/stream${changesQuery({ ...options, after: last })}`, {
        safe: true,
        headers: { accept: 'text/event-stream', ...resume },
        ...(signal ? { signal } : {}),
      });
      failures = 0;
      for await (const frame of eventFrames(response.body!)) {
        if (frame.event !== 'change' || frame.id === undefined) continue;
        last = frame.id;
        yield { ...(JSON.parse(frame.data) as ChangeEvent), cursor: frame.id };
      }
    } catch (error) {
      if (signal?.aborted) return;
      const status = (error as { status?: unknown }).status;
      if (typeof status === 'number' && status < 500 && status !== 429) throw error;
    }
    failures++;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.min(30_000, RECONNECT_MS * 2 ** (failures - 1)));
      signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

interface EventFrame {
  readonly id?: string;
  readonly event: string;
  readonly data: string;
}

/** The events of a text/event-stream body (https://html.spec.whatwg.org/multipage/server-sent-events.html). */
async function* eventFrames(body: ReadableStream<Uint8Array>): AsyncGenerator<EventFrame> {
  let buffer = '';
  for await (const chunk of body.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    for (let end = buffer.search(/\r?\n\r?\n/); end >= 0; end = buffer.search(/\r?\n\r?\n/)) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
      let id: string | undefined;
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split(/\r?\n/)) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') id = value;
        else if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length > 0) yield { ...(id === undefined ? {} : { id }), event, data: data.join('\n') };
    }
  }
}

export interface WebhookEndpointInput {
  readonly url: string;
  readonly description?: string;
  readonly connector_ids?: string[];
  readonly entities?: string[];
  readonly types?: ChangeType[];
}

/** One delivery of an event to an endpoint, with its attempts. */
export type WebhookDelivery = DeliveriesPage['data'][number];

const ENDPOINTS = '/api/v1/webhook-endpoints';
const endpointPath = (id: string, suffix = '') => `${ENDPOINTS}/${encodeURIComponent(id)}${suffix}`;

/** `/api/v1/webhook-endpoints`: signed deliveries of the organization's changes (docs/changes.md). */
export class WebhookEndpoints {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Creates an endpoint; `secret` (whsec_…) is in this answer only: keep it to verify signatures. */
  create(input: WebhookEndpointInput): Promise<WebhookEndpoint & { secret: string }> {
    return this.#transport.json('POST', ENDPOINTS, { body: input, safe: false });
  }

  async list(): Promise<WebhookEndpoint[]> {
    return (await this.#transport.json<{ data: WebhookEndpoint[] }>('GET', ENDPOINTS, { safe: true })).data;
  }

  get(id: string): Promise<WebhookEndpoint> {
    return this.#transport.json('GET', endpointPath(id), { safe: true });
  }

  update(
    id: string,
    changes: Partial<{ [F in keyof WebhookEndpointInput]: WebhookEndpointInput[F] | null }> & { enabled?: boolean },
  ): Promise<WebhookEndpoint> {
    return this.#transport.json('PATCH', endpointPath(id), { body: changes, safe: false });
  }

  async delete(id: string): Promise<void> {
    await this.#transport.json('DELETE', endpointPath(id), { safe: false });
  }

  async deliveries(
    id: string,
    options: { status?: WebhookDelivery['status']; limit?: number } = {},
  ): Promise<WebhookDelivery[]> {
    const query = new URLSearchParams();
    if (options.status) query.set('status', options.status);
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    const suffix = query.size > 0 ? `/deliveries?${query}` : '/deliveries';
    return (await this.#transport.json<{ data: WebhookDelivery[] }>('GET', endpointPath(id, suffix), { safe: true }))
      .data;
  }

  /** Sends again every change after `after` (a change-feed cursor), of one connector or all the endpoint follows. */
  replay(id: string, after: string, connectorId?: string): Promise<{ connector_ids: string[] }> {
    return this.#transport.json('POST', endpointPath(id, '/replay'), {
      body: connectorId === undefined ? { after } : { after, connector_id: connectorId },
      safe: false,
    });
  }
}
