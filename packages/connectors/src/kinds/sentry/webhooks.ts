import { isPlainObject } from '../../core/values.ts';
import {
  hmacSha256,
  idOf,
  matchesSignature,
  type SignedAtHeaders,
  unixSecondsMs,
  verifyTimestamped,
} from '../../core/webhook-hmac.ts';
import { type ParsedWebhook, WebhookPayloadError, type WebhookScheme } from '../../core/webhook-scheme.ts';

const SIGNATURE_HEADERS: SignedAtHeaders = {
  signature: 'sentry-hook-signature',
  timestamp: 'sentry-hook-timestamp',
  missing: 'missing Sentry-Hook-Signature or Sentry-Hook-Timestamp',
  signedAtMs: unixSecondsMs,
};

/**
 * Sentry integration-platform webhooks (https://docs.sentry.io/integrations/integration-platform/webhooks/):
 * `Sentry-Hook-Signature: <hex HMAC-SHA256 of the raw body>` keyed with the integration's client secret,
 * `Sentry-Hook-Resource` (installation, issue, error, event_alert, metric_alert, comment),
 * `Sentry-Hook-Timestamp` (Unix seconds; not covered by the signature, still refused when more than 5 minutes
 * off) and `Request-ID` (the delivery's id).
 * Issue events (https://docs.sentry.io/integrations/integration-platform/webhooks/issues/): `{action: created |
 * resolved | assigned | archived | unresolved, data: {issue: {id, url: ".../api/0/organizations/{org}/issues/
 * {id}/", project: {slug}, ...}}, installation: {uuid}}`. The organization comes from the issue's API url (or
 * the connector's `organization_slug`).
 */
export const sentryWebhooks: WebhookScheme = {
  checkSecret: () => null,
  verify({ headers, body }, secret, nowMs) {
    // The timestamp is not signed: the signature covers the body alone.
    return verifyTimestamped(headers, nowMs, SIGNATURE_HEADERS, (signature) =>
      matchesSignature(hmacSha256(secret, body).toString('hex'), signature.toLowerCase()),
    );
  },
  parse({ headers }, payload, config): ParsedWebhook {
    if (!isPlainObject(payload)) throw new WebhookPayloadError('not a Sentry webhook');
    const resource = headers('sentry-hook-resource') ?? 'unknown';
    const eventId = idOf(headers('request-id'));
    if (!eventId) throw new WebhookPayloadError('a Sentry webhook has a Request-ID header');
    const action = typeof payload.action === 'string' ? payload.action : 'unknown';
    const type = `${resource}.${action}`;
    const data = payload.data;
    const issue = isPlainObject(data) ? data.issue : undefined;
    if (resource !== 'issue' || !isPlainObject(issue)) return { eventId, type, records: [] };
    const issueId = idOf(issue.id);
    const fromUrl =
      typeof issue.url === 'string' ? /\/organizations\/([^/]+)\/issues\//.exec(issue.url)?.[1] : undefined;
    const organization = fromUrl ? decodeURIComponent(fromUrl) : idOf(config.organization_slug);
    if (!issueId || !organization) return { eventId, type, records: [] };
    return {
      eventId,
      type,
      records: [
        { entity: 'issues', key: issueId, params: { organization_slug: organization, issue_id: issueId }, via: 'get' },
      ],
    };
  },
};
