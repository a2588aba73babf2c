/** A header by name (case-insensitive, as HTTP headers are). */
export type HeaderLookup = (name: string) => string | undefined;

/** What a webhook call brings: its headers and its raw body, exactly as received (signatures cover these bytes). */
export interface WebhookDelivery {
  readonly headers: HeaderLookup;
  readonly body: Buffer;
}

export type Verification = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * A record a webhook names. The worker re-reads it from the upstream (webhooks are signals, never sources):
 * `get` with `params`, or, for entities without a get (Typeform responses), `list` with `params` filtered down
 * to the record whose key is `key`.
 */
export interface WebhookRecordRef {
  readonly entity: string;
  readonly key: string;
  readonly params: Record<string, unknown>;
  readonly via: 'get' | 'list';
}

export interface ParsedWebhook {
  /** The vendor's id of the event (or delivery): duplicates of it are processed once. */
  readonly eventId: string;
  /** The vendor's event type, for logs. */
  readonly type: string;
  /** Records to re-read; empty for events that name nothing we replicate (acknowledged, not queued). */
  readonly records: readonly WebhookRecordRef[];
}

/** The body passed verification but is not an event of the vendor's shape (a 400, never a 500). */
export class WebhookPayloadError extends Error {
  override name = 'WebhookPayloadError';
}

/** One vendor's webhook scheme, in its kind's folder: how it signs, and how its events name records. */
export interface WebhookScheme {
  /** A reason the secret cannot be this vendor's (e.g. incident.io secrets are `whsec_` + base64), or null. */
  checkSecret(secret: string): string | null;
  /** Checks the signature over the raw body (and the timestamp, where the scheme has one) before any parsing. */
  verify(delivery: WebhookDelivery, secret: string, nowMs: number): Verification;
  /** Reads a verified body: the event id and the records it names. */
  parse(delivery: WebhookDelivery, payload: unknown, config: Record<string, unknown>): ParsedWebhook;
}

/** Signatures older (or newer) than this are refused: a captured call cannot be replayed later. */
export const SIGNATURE_TOLERANCE_MS = 5 * 60 * 1000;
