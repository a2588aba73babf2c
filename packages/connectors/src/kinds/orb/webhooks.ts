import {
  hmacSha256,
  idOf,
  isObject,
  matchesAnyV1,
  type SignedAtHeaders,
  verifyTimestamped,
} from '../../core/webhook-hmac.ts';
import {
  type ParsedWebhook,
  WebhookPayloadError,
  type WebhookRecordRef,
  type WebhookScheme,
} from '../../core/webhook-scheme.ts';

/** Orb resources whose events carry the object under its own name, and the entity + get param it maps to. */
const RESOURCES: Record<string, { entity: string; param: string }> = {
  customer: { entity: 'customers', param: 'customer_id' },
  subscription: { entity: 'subscriptions', param: 'subscription_id' },
  invoice: { entity: 'invoices', param: 'invoice_id' },
};

/** X-Orb-Timestamp is ISO 8601, read as UTC when it carries no offset. */
const SIGNATURE_HEADERS: SignedAtHeaders = {
  signature: 'x-orb-signature',
  timestamp: 'x-orb-timestamp',
  missing: 'missing X-Orb-Timestamp or X-Orb-Signature',
  signedAtMs: (timestamp) => Date.parse(/(Z|[+-]\d{2}:?\d{2})$/.test(timestamp) ? timestamp : `${timestamp}Z`),
};

/**
 * Orb (https://docs.withorb.com/guides/integrations-and-exports/webhooks; the official SDK's verifier,
 * orb-billing src/resources/webhooks.ts): `X-Orb-Timestamp` is ISO 8601 (UTC when it has no offset),
 * `X-Orb-Signature` holds one or more space-separated `v1=<hex HMAC-SHA256("v1:{timestamp}:{raw body}")>`
 * keyed with the secret's UTF-8 bytes; a timestamp more than 5 minutes off is refused.
 * Events (orb-billing models, e.g. CustomerEditedWebhookEvent): `{id, created_at, type: "customer.edited",
 * properties, customer: {...}}`; the resource object sits under the name before the dot in `type`.
 */
export const orbWebhooks: WebhookScheme = {
  checkSecret: () => null,
  verify({ headers, body }, secret, nowMs) {
    return verifyTimestamped(headers, nowMs, SIGNATURE_HEADERS, (signatures, timestamp) =>
      matchesAnyV1(hmacSha256(secret, `v1:${timestamp}:`, body).toString('hex'), signatures, '='),
    );
  },
  parse(_delivery, payload): ParsedWebhook {
    if (!isObject(payload) || typeof payload.type !== 'string') throw new WebhookPayloadError('not an Orb event');
    const eventId = idOf(payload.id);
    if (!eventId) throw new WebhookPayloadError('an Orb event has an id');
    const resource = payload.type.split('.')[0] ?? '';
    const target = Object.hasOwn(RESOURCES, resource) ? RESOURCES[resource] : undefined;
    const object = payload[resource];
    const key = isObject(object) ? idOf(object.id) : undefined;
    const records: WebhookRecordRef[] =
      target && key ? [{ entity: target.entity, key, params: { [target.param]: key }, via: 'get' }] : [];
    return { eventId, type: payload.type, records };
  },
};
