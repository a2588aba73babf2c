import { createHmac, randomUUID } from 'node:crypto';
import { announce, EditRotation, randomHex, type SimulatedWebhooks, WebhookSender } from '../kit/webhooks.ts';
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
  const rotation = new EditRotation<ZendeskRecord>();
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
      const { record: phone, edit } = rotation.next(data.phone_numbers);
      phone.nickname = `Line ${edit} ${randomUUID().slice(0, 6)}`;
      const change = { entity: 'phone_numbers', key: String(phone.id), field: 'nickname', value: phone.nickname };
      return announce(sender, change, phoneNumberEvent(phone, 'updated'), options);
    },
    async remove(options = {}) {
      const phone = rotation.remove(data.phone_numbers);
      return announce(
        sender,
        { entity: 'phone_numbers', key: String(phone.id) },
        phoneNumberEvent(phone, 'deleted'),
        options,
      );
    },
  };
}
