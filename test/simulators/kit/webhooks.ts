import { randomBytes } from 'node:crypto';

/** A webhook call exactly as the vendor sends it: the raw body and its headers (signature included). */
export interface SignedDelivery {
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** The vendor's signing: the headers it adds to `body`, signed with `secret` at time `at`. */
export type VendorSigner = (input: {
  body: string;
  secret: string;
  at: Date;
  eventId: string;
}) => Record<string, string>;

/** What one simulated upstream change was, and the webhook that announces it. */
export interface WebhookChange {
  readonly entity: string;
  /** The record key (the specification's id field) of the changed record. */
  readonly key: string;
  /** For an edit: a searchable field that changed and its new value. Absent for a removal. */
  readonly field?: string;
  readonly value?: unknown;
  /** The vendor's event id (what duplicates share) and the raw body of the webhook. */
  readonly eventId: string;
  readonly body: string;
  /** The status the subscriber answered to the automatic delivery; null when it was not sent. */
  readonly status: number | null;
}

/** The webhooks side of a simulator: where it delivers, how it signs, and changes that make it send. */
export interface SimulatedWebhooks {
  readonly sender: WebhookSender;
  /** A new signing secret in the vendor's format (what its webhook settings page would show). */
  newSecret(): string;
  /** An upstream edit of a replicated record (a searchable field changes), announced by the vendor's webhook. */
  edit(options?: { send?: boolean }): Promise<WebhookChange>;
  /**
   * A record created upstream now, announced by the vendor's webhook (kinds whose incremental cursor is the
   * creation time see it by polling too: what the freshness benchmark compares).
   */
  create?(options?: { send?: boolean }): Promise<WebhookChange>;
  /** A record removed upstream; the webhook naming it arrives after it is gone (the re-read finds nothing). */
  remove(options?: { send?: boolean }): Promise<WebhookChange>;
}

/**
 * Delivers signed webhooks to the subscriber a test configures, like the vendor's webhook settings page: the
 * URL and the signing secret. Without a subscription, changes happen silently.
 */
export class WebhookSender {
  readonly #signer: VendorSigner;
  #target: { url: string; secret: string } | null = null;

  constructor(signer: VendorSigner) {
    this.#signer = signer;
  }

  subscribe(url: string, secret: string): void {
    this.#target = { url, secret };
  }

  unsubscribe(): void {
    this.#target = null;
  }

  get subscribed(): boolean {
    return this.#target !== null;
  }

  /** The call the vendor would make for `body`; `secret` and `at` default to the subscription's and now. */
  sign(body: string, eventId: string, options: { secret?: string; at?: Date } = {}): SignedDelivery {
    const secret = options.secret ?? this.#target?.secret;
    if (!secret) throw new Error('no signing secret: subscribe first or pass one');
    const headers = this.#signer({ body, secret, at: options.at ?? new Date(), eventId });
    return { body, headers: { 'content-type': 'application/json', ...headers } };
  }

  /** POSTs a delivery (to the subscription's URL by default) and returns the status. */
  async deliver(delivery: SignedDelivery, url = this.#target?.url): Promise<number> {
    if (!url) throw new Error('no webhook URL: subscribe first or pass one');
    const response = await fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.body });
    await response.arrayBuffer();
    return response.status;
  }

  /** Signs now with the subscription's secret and delivers; null when nobody is subscribed. */
  async emit(body: string, eventId: string): Promise<number | null> {
    if (!this.#target) return null;
    return this.deliver(this.sign(body, eventId));
  }
}

/** Random ids in the vendors' styles. */
export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** A vendor's webhook event: its id (what duplicates share) and the raw body. */
export interface WebhookEvent {
  readonly eventId: string;
  readonly body: string;
}

/** Reports an upstream `change` announced by `event`, which the sender delivers unless `send` is false. */
export async function announce(
  sender: WebhookSender,
  change: Pick<WebhookChange, 'entity' | 'key' | 'field' | 'value'>,
  event: WebhookEvent,
  options: { send?: boolean } = {},
): Promise<WebhookChange> {
  const status = options.send === false ? null : await sender.emit(event.body, event.eventId);
  return { ...change, ...event, status };
}

/**
 * Which record a simulated edit changes next (each in turn) and which one a removal takes: the one edited last,
 * replicated for sure, else the first.
 */
export class EditRotation<T> {
  #edits = 0;
  #lastEdited: T | undefined;

  /** The record to edit now, and the number of this edit (1 for the first). */
  next(records: readonly T[]): { record: T; edit: number } {
    const record = records[this.#edits++ % records.length]!;
    this.#lastEdited = record;
    return { record, edit: this.#edits };
  }

  /** Takes the record to remove out of `records`. */
  remove(records: T[]): T {
    const index = this.#lastEdited === undefined ? -1 : records.indexOf(this.#lastEdited);
    return records.splice(Math.max(0, index), 1)[0]!;
  }
}
