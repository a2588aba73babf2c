import { createHmac } from 'node:crypto';
import {
  announce,
  EditRotation,
  randomHex,
  type SimulatedWebhooks,
  type WebhookEvent,
  WebhookSender,
} from '../kit/webhooks.ts';
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

/** An Orb customer event (`customer.edited`, `customer.created`, ...) with a fresh event id, created now. */
export function orbCustomerEvent(
  type: string,
  customer: Record<string, unknown>,
  properties: Record<string, unknown> = {},
): WebhookEvent {
  const eventId = randomHex(11);
  const body = JSON.stringify({ id: eventId, created_at: new Date().toISOString(), type, customer, properties });
  return { eventId, body };
}

export function orbWebhooks(data: OrbData): SimulatedWebhooks {
  const sender = orbWebhookSender();
  const rotation = new EditRotation<OrbData['customers'][number]>();
  const customerEdited = (customer: Record<string, unknown>, previous: Record<string, unknown>) =>
    orbCustomerEvent('customer.edited', customer, { previous_attributes: previous });
  let created = 0;
  return {
    sender,
    newSecret: () => randomHex(20),
    async edit(options = {}) {
      const { record: customer, edit } = rotation.next(data.customers);
      const previous = { email: customer.email };
      customer.email = `edited-${edit}-${randomHex(3)}@example.com`;
      const change = { entity: 'customers', key: customer.id, field: 'email', value: customer.email };
      return announce(sender, change, customerEdited(customer, previous), options);
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
      const change = { entity: 'customers', key: customer.id, field: 'email', value: customer.email };
      return announce(sender, change, orbCustomerEvent('customer.created', customer), options);
    },
    async remove(options = {}) {
      // An edit announced just before the customer was deleted: by the time the event is processed, it is gone.
      const customer = rotation.remove(data.customers);
      return announce(
        sender,
        { entity: 'customers', key: customer.id },
        customerEdited(customer, { name: customer.name }),
        options,
      );
    },
  };
}
