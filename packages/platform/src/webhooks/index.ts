import { incidentIoWebhooks } from './incident-io.ts';
import { orbWebhooks } from './orb.ts';
import { sentryWebhooks } from './sentry.ts';
import { typeformWebhooks } from './typeform.ts';
import type { WebhookScheme } from './types.ts';
import { zendeskWebhooks } from './zendesk.ts';

export * from './types.ts';

const SCHEMES: readonly WebhookScheme[] = [
  orbWebhooks,
  typeformWebhooks,
  sentryWebhooks,
  incidentIoWebhooks,
  zendeskWebhooks,
];

/** The kind's webhook scheme (docs/api.md), or undefined for kinds without webhooks. */
export function webhookSchemeFor(connectorType: string): WebhookScheme | undefined {
  const wanted = connectorType.toLowerCase();
  return SCHEMES.find((s) => s.connectorType.toLowerCase() === wanted);
}
export {
  WEBHOOK_DEDUP_MS,
  WEBHOOK_JOB_NAME,
  WebhookEventJob,
  WebhookQueue,
  webhookQueueName,
} from './webhook-queue.ts';
