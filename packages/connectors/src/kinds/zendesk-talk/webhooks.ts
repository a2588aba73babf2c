import { eventOf, getAgain, requiredId, timestampedHmacScheme } from '../../core/webhook-hmac.ts';
import type { ParsedWebhook, WebhookScheme } from '../../core/webhook-scheme.ts';

/** Talk resources named by a `zen:<resource>:<id>` subject, with the entity and get param they map to. */
const RESOURCES: Record<string, { entity: string; param: string; numeric: boolean }> = {
  phone_number: { entity: 'phone_numbers', param: 'phone_number_id', numeric: true },
  address: { entity: 'addresses', param: 'address_id', numeric: true },
  greeting: { entity: 'greetings', param: 'greeting_id', numeric: false },
  greeting_category: { entity: 'greeting_categories', param: 'greeting_category_id', numeric: true },
  ivr: { entity: 'ivrs', param: 'ivr_id', numeric: true },
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
export const zendeskWebhooks: WebhookScheme = timestampedHmacScheme(
  {
    signature: 'x-zendesk-webhook-signature',
    timestamp: 'x-zendesk-webhook-signature-timestamp',
    missing: 'missing X-Zendesk-Webhook-Signature or its timestamp',
    signedAtMs: Date.parse,
    signedPrefix: (timestamp) => timestamp,
    encoding: 'base64',
  },
  (_delivery, payload): ParsedWebhook => {
    const [event, type] = eventOf(payload, 'type', 'a Zendesk event');
    const eventId = requiredId(event.id, 'a Zendesk event has an id');
    const subject = typeof event.subject === 'string' ? /^zen:([a-z_]+):(\d{1,19})$/.exec(event.subject) : null;
    const target = subject && Object.hasOwn(RESOURCES, subject[1]!) ? RESOURCES[subject[1]!] : undefined;
    const id = subject ? Number(subject[2]) : Number.NaN;
    const key = Number.isSafeInteger(id) && id > 0 ? String(id) : undefined;
    const records = getAgain(target, key, ({ param, numeric }) => ({ [param]: numeric ? id : String(id) }));
    return { eventId, type, records };
  },
);
