import {
  hmacSha256,
  idOf,
  isObject,
  matchesSignature,
  type SignedAtHeaders,
  verifyTimestamped,
} from '../../core/webhook-hmac.ts';
import {
  type ParsedWebhook,
  WebhookPayloadError,
  type WebhookRecordRef,
  type WebhookScheme,
} from '../../core/webhook-scheme.ts';

/** Talk resources named by a `zen:<resource>:<id>` subject, with the entity and get param they map to. */
const RESOURCES: Record<string, { entity: string; param: string; numeric: boolean }> = {
  phone_number: { entity: 'phone_numbers', param: 'phone_number_id', numeric: true },
  address: { entity: 'addresses', param: 'address_id', numeric: true },
  greeting: { entity: 'greetings', param: 'greeting_id', numeric: false },
  greeting_category: { entity: 'greeting_categories', param: 'greeting_category_id', numeric: true },
  ivr: { entity: 'ivrs', param: 'ivr_id', numeric: true },
};

const SIGNATURE_HEADERS: SignedAtHeaders = {
  signature: 'x-zendesk-webhook-signature',
  timestamp: 'x-zendesk-webhook-signature-timestamp',
  missing: 'missing X-Zendesk-Webhook-Signature or its timestamp',
  signedAtMs: Date.parse,
};

/**
 * Zendesk webhooks (https://developer.zendesk.com/documentation/webhooks/verifying/):
 * `X-Zendesk-Webhook-Signature: base64(HMAC-SHA256(timestamp + raw body))` with
 * `X-Zendesk-Webhook-Signature-Timestamp` (ISO 8601), refused when more than 5 minutes off.
 * Events use Zendesk's event envelope (https://developer.zendesk.com/api-reference/webhooks/event-types/
 * webhook-event-types/): `{type: "zen:event-type:<resource>.<change>", account_id, id, time,
 * zendesk_event_version, subject: "zen:<resource>:<id>", detail: {...}, event: {...}}`. Zendesk publishes no
 * Talk event types: Talk changes arrive through a trigger or automation webhook whose JSON body follows the
 * same envelope, and `subject` names the Talk record (e.g. `zen:phone_number:123`). `id` is the event id.
 */
export const zendeskWebhooks: WebhookScheme = {
  checkSecret: () => null,
  verify({ headers, body }, secret, nowMs) {
    return verifyTimestamped(headers, nowMs, SIGNATURE_HEADERS, (signature, timestamp) =>
      matchesSignature(hmacSha256(secret, timestamp, body).toString('base64'), signature),
    );
  },
  parse(_delivery, payload): ParsedWebhook {
    if (!isObject(payload) || typeof payload.type !== 'string') throw new WebhookPayloadError('not a Zendesk event');
    const eventId = idOf(payload.id);
    if (!eventId) throw new WebhookPayloadError('a Zendesk event has an id');
    const subject = typeof payload.subject === 'string' ? /^zen:([a-z_]+):(\d{1,19})$/.exec(payload.subject) : null;
    const target = subject && Object.hasOwn(RESOURCES, subject[1]!) ? RESOURCES[subject[1]!] : undefined;
    const id = subject ? Number(subject[2]) : Number.NaN;
    const records: WebhookRecordRef[] =
      target && Number.isSafeInteger(id) && id > 0
        ? [
            {
              entity: target.entity,
              key: String(id),
              params: { [target.param]: target.numeric ? id : String(id) },
              via: 'get',
            },
          ]
        : [];
    return { eventId, type: payload.type, records };
  },
};
