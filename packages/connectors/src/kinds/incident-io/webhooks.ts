import {
  hmacSha256,
  idOf,
  isObject,
  matchesAnyV1,
  refused,
  unixSecondsMs,
  verifyTimestamped,
} from '../../core/webhook-hmac.ts';
import {
  type ParsedWebhook,
  WebhookPayloadError,
  type WebhookRecordRef,
  type WebhookScheme,
} from '../../core/webhook-scheme.ts';

const SECRET_PREFIX = 'whsec_';

/** Event types (https://docs.incident.io/openapi/webhooks.json) and the replicated entity each one names. */
const ENTITY_OF_EVENT: Record<string, string> = {
  'public_incident.incident_created_v2': 'incidents',
  'public_incident.incident_updated_v2': 'incidents',
  'public_incident.incident_status_updated_v2': 'incidents',
  'private_incident.incident_created_v2': 'incidents',
  'private_incident.incident_updated_v2': 'incidents',
  'public_alert.alert_created_v1': 'alerts',
  'schedule.created_v1': 'schedules',
  'schedule.updated_v1': 'schedules',
  'schedule.deleted_v1': 'schedules',
};

function keyOf(secret: string): Buffer | null {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : null;
  if (!encoded || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return null;
  const key = Buffer.from(encoded, 'base64');
  return key.length > 0 ? key : null;
}

/**
 * incident.io signs with Svix, i.e. Standard Webhooks (https://api-docs.incident.io/tag/Webhooks/,
 * https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md): `webhook-id`,
 * `webhook-timestamp` (Unix seconds) and `webhook-signature`, space-separated `v1,<base64 HMAC-SHA256 of
 * "{id}.{timestamp}.{raw body}">`, keyed with the base64-decoded part of the `whsec_...` secret.
 * Events: `{event_type: "public_incident.incident_updated_v2", "public_incident.incident_updated_v2": {id, ...}}`
 * (the object sits under the event type's own name); `webhook-id` is the event id.
 */
export const incidentIoWebhooks: WebhookScheme = {
  checkSecret: (secret) =>
    keyOf(secret) ? null : 'incident.io signing secrets are whsec_ followed by base64 (Settings > Webhooks)',
  verify({ headers, body }, secret, nowMs) {
    const missing = 'missing webhook-id, webhook-timestamp or webhook-signature';
    const id = headers('webhook-id');
    if (!id) return refused(missing);
    const spec = { signature: 'webhook-signature', timestamp: 'webhook-timestamp', missing, signedAtMs: unixSecondsMs };
    return verifyTimestamped(headers, nowMs, spec, (signatures, timestamp) => {
      const key = keyOf(secret);
      if (!key) return refused('the configured secret is not a whsec_ secret');
      return matchesAnyV1(hmacSha256(key, `${id}.${timestamp}.`, body).toString('base64'), signatures, ',');
    });
  },
  parse({ headers }, payload): ParsedWebhook {
    const eventId = idOf(headers('webhook-id'));
    if (!eventId) throw new WebhookPayloadError('an incident.io webhook has a webhook-id header');
    if (!isObject(payload) || typeof payload.event_type !== 'string') {
      throw new WebhookPayloadError('not an incident.io event');
    }
    const type = payload.event_type;
    const entity = Object.hasOwn(ENTITY_OF_EVENT, type) ? ENTITY_OF_EVENT[type] : undefined;
    const object = payload[type];
    // Status-update events nest the incident (`{incident: {...}, new_status, previous_status}`).
    const inner = isObject(object) && isObject(object.incident) ? object.incident : object;
    const key = isObject(inner) ? idOf(inner.id) : undefined;
    const records: WebhookRecordRef[] = entity && key ? [{ entity, key, params: { id: key }, via: 'get' }] : [];
    return { eventId, type, records };
  },
};
