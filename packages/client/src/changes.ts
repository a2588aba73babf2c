import type { ChangeEvent, ChangesPage, DeliveriesPage, WebhookEndpoint } from './generated/api.ts';
import type { Transport } from './transport.ts';

export type ChangeType = ChangeEvent['type'];

export interface ChangesOptions {
  /** A `meta.cursor` (or an event's `cursor`) to continue after; `latest` for only what comes next. */
  readonly after?: string;
  readonly entity?: string;
  /** Events per request (1-1000). */
  readonly limit?: number;
  /** Keep waiting for new events once the feed is read (polling every `pollMs`, default 1000) until `signal` aborts. */
  readonly follow?: boolean;
  readonly pollMs?: number;
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
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, options.pollMs ?? 1000);
      options.signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    if (options.signal?.aborted) return;
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
