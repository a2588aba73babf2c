import { Webhook } from 'standardwebhooks';
import { announce, EditRotation, randomHex, type SimulatedWebhooks, WebhookSender } from '../kit/webhooks.ts';
import type { IncidentIoData } from './data.ts';

/**
 * incident.io's webhooks are sent by Svix, i.e. signed the Standard Webhooks way
 * (https://api-docs.incident.io/tag/Webhooks/): signed here with the Standard Webhooks reference library, so the
 * platform's verifier is checked against an implementation it does not share. Events:
 * `{event_type: "public_incident.incident_updated_v2", "public_incident.incident_updated_v2": {...incident}}`.
 */
export function incidentIoWebhookSender(): WebhookSender {
  return new WebhookSender(({ body, secret, at, eventId }) => ({
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(eventId, at, body),
  }));
}

/** A secret in incident.io's format (whsec_ + base64 of random bytes). */
export function incidentIoSecret(): string {
  return `whsec_${Buffer.from(randomHex(24), 'hex').toString('base64')}`;
}

export function incidentIoWebhooks(data: IncidentIoData): SimulatedWebhooks {
  const sender = incidentIoWebhookSender();
  const rotation = new EditRotation<IncidentIoData['incidents'][number]>();
  const incidentEvent = (type: string, incident: Record<string, unknown>) => {
    const eventId = `msg_${randomHex(13)}`;
    return { eventId, body: JSON.stringify({ event_type: type, [type]: incident }) };
  };
  const updated = (incident: Record<string, unknown>) => incidentEvent('public_incident.incident_updated_v2', incident);
  let created = 0;
  return {
    sender,
    newSecret: incidentIoSecret,
    async edit(options = {}) {
      const { record: incident, edit } = rotation.next(data.incidents);
      incident.name = `Renamed incident ${edit} ${randomHex(3)}`;
      incident.updated_at = new Date().toISOString();
      const change = { entity: 'incidents', key: incident.id, field: 'name', value: incident.name };
      return announce(sender, change, updated(incident), options);
    },
    async create(options = {}) {
      const n = ++created;
      const now = new Date().toISOString();
      const incident = {
        ...data.incidents[0]!,
        id: `01${randomHex(12).toUpperCase()}`,
        name: `New incident ${n} ${randomHex(3)}`,
        created_at: now,
        updated_at: now,
      };
      data.incidents.unshift(incident);
      const change = { entity: 'incidents', key: incident.id, field: 'name', value: incident.name };
      return announce(sender, change, incidentEvent('public_incident.incident_created_v2', incident), options);
    },
    async remove(options = {}) {
      const incident = rotation.remove(data.incidents);
      return announce(sender, { entity: 'incidents', key: incident.id }, updated(incident), options);
    },
  };
}
