import { isPlainObject } from '../../core/values.ts';
import { eventOf, getAgain, idOf, requiredId, timestampedHmacScheme } from '../../core/webhook-hmac.ts';
import type { ParsedWebhook, WebhookScheme } from '../../core/webhook-scheme.ts';

/** Orb resources whose events carry the object under its own name, and the entity + get param it maps to. */
const RESOURCES: Record<string, { entity: string; param: string }> = {
  customer: { entity: 'customers', param: 'customer_id' },
  subscription: { entity: 'subscriptions', param: 'subscription_id' },
  invoice: { entity: 'invoices', param: 'invoice_id' },
};

/**
 * Orb (https://docs.withorb.com/guides/integrations-and-exports/webhooks; the official SDK's verifier,
 * orb-billing src/resources/webhooks.ts): `X-Orb-Timestamp` is ISO 8601 (UTC when it has no offset),
 * `X-Orb-Signature` holds one or more space-separated `v1=<hex HMAC-SHA256("v1:{timestamp}:{raw body}")>`
 * keyed with the secret's UTF-8 bytes; a timestamp more than 5 minutes off is refused.
 * Events (orb-billing models, e.g. CustomerEditedWebhookEvent): `{id, created_at, type: "customer.edited",
 * properties, customer: {...}}`; the resource object sits under the name before the dot in `type`.
 */
export const orbWebhooks: WebhookScheme = timestampedHmacScheme(
  {
    signature: 'x-orb-signature',
    timestamp: 'x-orb-timestamp',
    missing: 'missing X-Orb-Timestamp or X-Orb-Signature',
    // X-Orb-Timestamp is ISO 8601, read as UTC when it carries no offset.
    signedAtMs: (timestamp) => Date.parse(/(Z|[+-]\d{2}:?\d{2})$/.test(timestamp) ? timestamp : `${timestamp}Z`),
    signedPrefix: (timestamp) => `v1:${timestamp}:`,
    encoding: 'hex',
    v1Separator: '=',
  },
  (_delivery, payload): ParsedWebhook => {
    const [event, type] = eventOf(payload, 'type', 'an Orb event');
    const eventId = requiredId(event.id, 'an Orb event has an id');
    const resource = type.split('.')[0] ?? '';
    const target = Object.hasOwn(RESOURCES, resource) ? RESOURCES[resource] : undefined;
    const object = event[resource];
    const key = isPlainObject(object) ? idOf(object.id) : undefined;
    return { eventId, type, records: getAgain(target, key, ({ param }, id) => ({ [param]: id })) };
  },
);
