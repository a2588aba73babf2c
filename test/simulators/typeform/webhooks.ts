import { createHmac } from 'node:crypto';
import { announce, randomHex, type SimulatedWebhooks, WebhookSender } from '../kit/webhooks.ts';
import type { TypeformData, TypeformResponse } from './data.ts';

/**
 * Typeform's webhooks (https://www.typeform.com/developers/webhooks/secure-your-webhooks/):
 * `Typeform-Signature: sha256=<base64 HMAC-SHA256(body)>`. The only event is a submission
 * (https://www.typeform.com/developers/webhooks/example-payload/): `{event_id, event_type: "form_response",
 * form_response: {form_id, token, landed_at, submitted_at, answers, ...}}`.
 */
export function typeformWebhookSender(): WebhookSender {
  return new WebhookSender(({ body, secret }) => ({
    'Typeform-Signature': `sha256=${createHmac('sha256', secret).update(body).digest('base64')}`,
  }));
}

export function typeformWebhooks(data: TypeformData): SimulatedWebhooks {
  const sender = typeformWebhookSender();
  const formId = data.forms[0]!.id;
  const formResponse = (response: TypeformResponse) => {
    const eventId = randomHex(5);
    const { response_id: _omit, ...fields } = response;
    const body = JSON.stringify({
      event_id: eventId,
      event_type: 'form_response',
      form_response: { form_id: formId, ...fields, definition: { id: formId } },
    });
    return { eventId, body };
  };
  return {
    sender,
    newSecret: () => randomHex(20),
    async edit(options = {}) {
      // Typeform responses are not edited: the upstream change a webhook announces is a new submission.
      const token = randomHex(16);
      const at = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      const response: TypeformResponse = {
        landing_id: token,
        token,
        response_id: token,
        response_type: 'completed',
        landed_at: at,
        submitted_at: at,
        metadata: { user_agent: 'Mozilla/5.0', platform: 'other', browser: 'default' },
        hidden: {},
        calculated: { score: 0 },
        variables: [],
        answers: [],
      };
      const list = data.responses.get(formId) ?? [];
      list.push(response);
      data.responses.set(formId, list);
      const change = { entity: 'responses', key: token, field: 'token', value: token };
      return announce(sender, change, formResponse(response), options);
    },
    async remove(options = {}) {
      // A redelivered submission of a response deleted since (DELETE /forms/{id}/responses).
      const list = data.responses.get(formId) ?? [];
      const response = list.splice(list.length - 1, 1)[0]!;
      return announce(sender, { entity: 'responses', key: response.response_id }, formResponse(response), options);
    },
  };
}
