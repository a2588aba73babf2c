import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new endpoint secret in the Standard Webhooks format: `whsec_` + base64 of 24 random bytes. */
export function newEndpointSecret(): string {
  return `${PREFIX}${randomBytes(24).toString('base64')}`;
}

/**
 * The Standard Webhooks headers of one delivery attempt (https://www.standardwebhooks.com/, "Signature scheme"):
 * `webhook-signature: v1,<base64 HMAC-SHA256 with the secret's key bytes over "{id}.{timestamp}.{body}">`.
 * The id is the event's, the same on every attempt; the timestamp is the attempt's, in unix seconds.
 */
export function signedHeaders(
  secret: string,
  delivery: { readonly id: string; readonly body: string; readonly at: Date },
): Record<string, string> {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  const timestamp = Math.floor(delivery.at.getTime() / 1000).toString();
  const signature = createHmac('sha256', key).update(`${delivery.id}.${timestamp}.${delivery.body}`).digest('base64');
  return {
    'content-type': 'application/json',
    'webhook-id': delivery.id,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${signature}`,
  };
}
