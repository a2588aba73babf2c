import { createHmac, randomUUID } from 'node:crypto';
import { randomHex, type SimulatedWebhooks, WebhookSender } from '../kit/webhooks.ts';
import type { ZendeskRecord, ZendeskTalkData } from './data.ts';

/**
 * Zendesk webhooks (https://developer.zendesk.com/documentation/webhooks/verifying/):
 * `X-Zendesk-Webhook-Signature: base64(HMAC-SHA256(timestamp + body))`, `X-Zendesk-Webhook-Signature-Timestamp`
 * ISO 8601. The body is Zendesk's event envelope (https://developer.zendesk.com/api-reference/webhooks/
 * event-types/webhook-event-types/) with a Talk subject (`zen:phone_number:{id}`): Zendesk has no Talk event
 * types, so an admin's trigger or automation webhook sends this body.
 */
export function zendeskWebhookSender(): WebhookSender {
  return new WebhookSender(({ body, secret, at }) => {
    const timestamp = at.toISOString().replace(/\.\d{3}Z$/, 'Z');
    return {
      'X-Zendesk-Webhook-Signature-Timestamp': timestamp,
      'X-Zendesk-Webhook-Signature': createHmac('sha256', secret)
        .update(timestamp + body)
        .digest('base64'),
    };
  });
}

export function zendeskTalkWebhooks(data: ZendeskTalkData): SimulatedWebhooks {
  const sender = zendeskWebhookSender();
  let edits = 0;
  let lastEdited: ZendeskRecord | undefined;
  const phoneNumberEvent = (phone: ZendeskRecord, change: 'updated' | 'deleted') => {
    const eventId = randomUUID();
    const body = JSON.stringify({
      type: `zen:event-type:phone_number.${change}`,
      account_id: 12514403,
      id: eventId,
      time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      zendesk_event_version: '2022-06-20',
      subject: `zen:phone_number:${phone.id}`,
      detail: { id: String(phone.id), nickname: phone.nickname },
      event: {},
    });
    return { eventId, body };
  };
  return {
    sender,
    newSecret: () => randomHex(20),
    async edit(options = {}) {
      const phone = data.phone_numbers[edits++ % data.phone_numbers.length]!;
      lastEdited = phone;
      phone.nickname = `Line ${edits} ${randomUUID().slice(0, 6)}`;
      const event = phoneNumberEvent(phone, 'updated');
      const status = options.send === false ? null : await sender.emit(event.body, event.eventId);
      return {
        entity: 'phone_numbers',
        key: String(phone.id),
        field: 'nickname',
        value: phone.nickname,
        ...event,
        status,
      };
    },
    async remove(options = {}) {
      const phone = data.phone_numbers.splice(Math.max(0, data.phone_numbers.indexOf(lastEdited!)), 1)[0]!;
      const event = phoneNumberEvent(phone, 'deleted');
      const status = options.send === false ? null : await sender.emit(event.body, event.eventId);
      return { entity: 'phone_numbers', key: String(phone.id), ...event, status };
    },
  };
}
