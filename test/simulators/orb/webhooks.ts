import { createHmac } from 'node:crypto';
import { randomHex, type SimulatedWebhooks, WebhookSender } from '../kit/webhooks.ts';
import type { OrbData } from './data.ts';

/**
 * Orb's webhooks (https://docs.withorb.com/guides/integrations-and-exports/webhooks; signing as in the official
 * SDK, orb-billing src/resources/webhooks.ts): `X-Orb-Timestamp` is ISO 8601 without a zone,
 * `X-Orb-Signature: v1=<hex HMAC-SHA256("v1:{timestamp}:{body}")>`. Events: `{id, created_at, type, properties,
 * <resource>: {...}}` (e.g. `customer.edited` with `properties.previous_attributes`).
 */
export function orbWebhookSender(): WebhookSender {
  return new WebhookSender(({ body, secret, at }) => {
    const timestamp = at.toISOString().replace(/Z$/, '');
    const signature = createHmac('sha256', secret).update(`v1:${timestamp}:${body}`).digest('hex');
    return { 'X-Orb-Timestamp': timestamp, 'X-Orb-Signature': `v1=${signature}` };
  });
}

export function orbWebhooks(data: OrbData): SimulatedWebhooks {
  const sender = orbWebhookSender();
  let edits = 0;
  let lastEdited: OrbData['customers'][number] | undefined;
  const customerEvent = (type: string, customer: Record<string, unknown>, properties: Record<string, unknown>) => {
    const eventId = randomHex(11);
    const body = JSON.stringify({ id: eventId, created_at: new Date().toISOString(), type, customer, properties });
    return { eventId, body };
  };
  const customerEdited = (customer: Record<string, unknown>, previous: Record<string, unknown>) =>
    customerEvent('customer.edited', customer, { previous_attributes: previous });
  let created = 0;
  return {
    sender,
    newSecret: () => randomHex(20),
    async edit(options = {}) {
      const customer = data.customers[edits++ % data.customers.length]!;
      lastEdited = customer;
      const previous = { email: customer.email };
      customer.email = `edited-${edits}-${randomHex(3)}@example.com`;
      const event = customerEdited(customer, previous);
      const status = options.send === false ? null : await sender.emit(event.body, event.eventId);
      return { entity: 'customers', key: customer.id, field: 'email', value: customer.email, ...event, status };
    },
    async create(options = {}) {
      const n = ++created;
      const customer = {
        ...data.customers[0]!,
        id: `cus_${randomHex(8)}`,
        external_customer_id: `ext-new-${n}-${randomHex(3)}`,
        name: `New customer ${n}`,
        email: `new-${n}-${randomHex(3)}@example.com`,
        created_at: new Date().toISOString().replace(/\.\d{3}Z$/, '+00:00'),
      };
      data.customers.push(customer);
      const event = customerEvent('customer.created', customer, {});
      const status = options.send === false ? null : await sender.emit(event.body, event.eventId);
      return { entity: 'customers', key: customer.id, field: 'email', value: customer.email, ...event, status };
    },
    async remove(options = {}) {
      // An edit announced just before the customer was deleted: by the time the event is processed, it is gone.
      // The customer edited last (replicated for sure), else the first one.
      const customer = data.customers.splice(Math.max(0, data.customers.indexOf(lastEdited!)), 1)[0]!;
      const event = customerEdited(customer, { name: customer.name });
      const status = options.send === false ? null : await sender.emit(event.body, event.eventId);
      return { entity: 'customers', key: customer.id, ...event, status };
    },
  };
}
