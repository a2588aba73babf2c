import { isPlainObject } from '../../core/values.ts';
import { hmacSha256, idOf, matchesSignature, refused } from '../../core/webhook-hmac.ts';
import { type ParsedWebhook, WebhookPayloadError, type WebhookScheme } from '../../core/webhook-scheme.ts';

/**
 * Typeform (https://www.typeform.com/developers/webhooks/secure-your-webhooks/):
 * `Typeform-Signature: sha256=<base64 HMAC-SHA256 of the raw body>` keyed with the webhook's secret. The scheme
 * signs no timestamp, so there is no staleness to check: a replayed delivery carries the same `event_id` and
 * is dropped as a duplicate.
 * Events (https://www.typeform.com/developers/webhooks/example-payload/): `{event_id, event_type:
 * "form_response", form_response: {form_id, token, submitted_at, answers, ...}}`; the response's `token` is its
 * `response_id`. Typeform has no "get one response": the response is re-read with the list filter
 * `included_response_ids` (https://www.typeform.com/developers/responses/reference/retrieve-responses/).
 */
export const typeformWebhooks: WebhookScheme = {
  checkSecret: () => null,
  verify({ headers, body }, secret) {
    const header = headers('typeform-signature');
    if (!header) return refused('missing Typeform-Signature');
    const expected = `sha256=${hmacSha256(secret, body).toString('base64')}`;
    return matchesSignature(expected, header);
  },
  parse(_delivery, payload): ParsedWebhook {
    if (!isPlainObject(payload)) throw new WebhookPayloadError('not a Typeform event');
    const eventId = idOf(payload.event_id);
    if (!eventId) throw new WebhookPayloadError('a Typeform event has an event_id');
    const type = typeof payload.event_type === 'string' ? payload.event_type : 'unknown';
    const response = payload.form_response;
    const formId = isPlainObject(response) ? idOf(response.form_id) : undefined;
    const token = isPlainObject(response) ? idOf(response.token) : undefined;
    if (type !== 'form_response' || !formId || !token) return { eventId, type, records: [] };
    return {
      eventId,
      type,
      records: [
        { entity: 'responses', key: token, params: { form_id: formId, included_response_ids: token }, via: 'list' },
      ],
    };
  },
};
