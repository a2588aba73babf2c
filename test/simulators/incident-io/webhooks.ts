import { Webhook } from 'standardwebhooks';
import { randomHex, type SimulatedWebhooks, WebhookSender } from '../kit/webhooks.ts';
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
  let edits = 0;
  let lastEdited: IncidentIoData['incidents'][number] | undefined;
  const announce = (type: string, incident: Record<string, unknown>) => {
    const eventId = `msg_${randomHex(13)}`;
    return { eventId, body: JSON.stringify({ event_type: type, [type]: incident }) };
  };
  const updated = (incident: Record<string, unknown>) => announce('public_incident.incident_updated_v2', incident);
  let created = 0;
  return {
    sender,
    newSecret: incidentIoSecret,
    async edit(options = {}) {
      const incident = data.incidents[edits++ % data.incidents.length]!;
      lastEdited = incident;
      incident.name = `Renamed incident ${edits} ${randomHex(3)}`;
      incident.updated_at = new Date().toISOString();
      const event = updated(incident);
      const status = options.send === false ? null : await sender.emit(event.body, event.eventId);
      return { entity: 'incidents', key: incident.id, field: 'name', value: incident.name, ...event, status };
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
      const event = announce('public_incident.incident_created_v2', incident);
      const status = options.send === false ? null : await sender.emit(event.body, event.eventId);
      return { entity: 'incidents', key: incident.id, field: 'name', value: incident.name, ...event, status };
    },
    async remove(options = {}) {
      // The incident edited last (replicated for sure), else the first one.
      const incident = data.incidents.splice(Math.max(0, data.incidents.indexOf(lastEdited!)), 1)[0]!;
      const event = updated(incident);
      const status = options.send === false ? null : await sender.emit(event.body, event.eventId);
      return { entity: 'incidents', key: incident.id, ...event, status };
    },
  };
}
