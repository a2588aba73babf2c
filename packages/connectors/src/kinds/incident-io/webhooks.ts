import { isPlainObject } from '../../core/values.ts';
import { eventOf, getAgain, idOf, requiredId, timestampedHmacScheme, unixSecondsMs } from '../../core/webhook-hmac.ts';
import type { ParsedWebhook, WebhookScheme } from '../../core/webhook-scheme.ts';

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
export const incidentIoWebhooks: WebhookScheme = timestampedHmacScheme(
  {
    signature: 'webhook-signature',
    timestamp: 'webhook-timestamp',
    missing: 'missing webhook-id, webhook-timestamp or webhook-signature',
    signedAtMs: unixSecondsMs,
    signedPrefix: (timestamp, headers) => {
      const id = headers('webhook-id');
      return id ? `${id}.${timestamp}.` : null;
    },
    encoding: 'base64',
    v1Separator: ',',
    key: {
      of: keyOf,
      requirement: 'incident.io signing secrets are whsec_ followed by base64 (Settings > Webhooks)',
      refusal: 'the configured secret is not a whsec_ secret',
    },
  },
  ({ headers }, payload): ParsedWebhook => {
    const eventId = requiredId(headers('webhook-id'), 'an incident.io webhook has a webhook-id header');
    const [event, type] = eventOf(payload, 'event_type', 'an incident.io event');
    const entity = Object.hasOwn(ENTITY_OF_EVENT, type) ? ENTITY_OF_EVENT[type] : undefined;
    const object = event[type];
    // Status-update events nest the incident (`{incident: {...}, new_status, previous_status}`).
    const inner = isPlainObject(object) && isPlainObject(object.incident) ? object.incident : object;
    const key = isPlainObject(inner) ? idOf(inner.id) : undefined;
    return { eventId, type, records: getAgain(entity ? { entity } : undefined, key, (_, id) => ({ id })) };
  },
);
