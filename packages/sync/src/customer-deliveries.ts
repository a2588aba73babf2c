import { intervalMs } from '@conduit/config';
import {
  changeEventId,
  changeEventView,
  createDeliverySender,
  type DeliverySender,
  signedHeaders,
} from '@conduit/customer-webhooks';
import type { ClaimedDelivery, DeliveryAttempt, WebhookEndpointRow } from '@conduit/db';
import type { SyncDeps } from './deps.ts';

/** Events read from the feed per endpoint and connector per round. */
const FAN_OUT_BATCH = 500;
/**
 * Deliveries sent at once by one worker, their outcomes recorded in one transaction per round: after an outage the
 * backlog goes out at this many per receiver round trip (bench:changes, receiver down 10 minutes at 100 events/s).
 */
const SENDING = 64;
/** How often the worker looks for new events and due deliveries when idle. */
const POLL_MS = 200;
/** An endpoint failing this long without one success is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 3_600_000;

type DeliveryDeps = Pick<SyncDeps, 'env' | 'logger' | 'changeFeed' | 'webhookEndpoints' | 'cipher'> &
  Partial<Pick<SyncDeps, 'connectors' | 'usage'>>;

/** The waits before each retry (WEBHOOK_RETRY_SCHEDULE), in milliseconds. */
export function retrySchedule(schedule: string): number[] {
  return schedule.split(',').map((step) => intervalMs(step.trim()));
}

/**
 * Turns new change-feed events into deliveries, for every enabled endpoint and each connector it follows
 * (docs/changes.md). Runs in every worker; the positions' row locks keep one worker per endpoint and connector.
 */
export async function fanOutChanges(deps: DeliveryDeps): Promise<number> {
  let queued = 0;
  for (const { endpoint, connectorIds } of await deps.webhookEndpoints.enabledWithConnectors()) {
    for (const connectorId of connectorIds) {
      queued += await deps.webhookEndpoints.fanOut(endpoint, connectorId, async (after) => {
        const events = await deps.changeFeed.read(connectorId, { after, limit: FAN_OUT_BATCH });
        const accepted = events.filter((event) => accepts(endpoint, event));
        return {
          lastSeq: events.at(-1)?.seq ?? after,
          deliveries: accepted.map((event) => ({
            seq: event.seq,
            recordRef: `${event.entity}/${event.key}`,
            payload: JSON.stringify({ ...changeEventView(connectorId, event), connector_id: connectorId }),
          })),
        };
      });
    }
  }
  return queued;
}

function accepts(endpoint: WebhookEndpointRow, event: { entity: string; type: string }): boolean {
  return (
    (endpoint.entities === null || endpoint.entities.includes(event.entity)) &&
    (endpoint.types === null || endpoint.types.includes(event.type))
  );
}

/**
 * Sends the deliveries due now, each under a lease a little longer than its timeout: a worker killed mid-delivery
 * leaves it leased, and once the lease runs out another worker sends it again, with the same webhook-id (at least
 * once). A 2xx within WEBHOOK_TIMEOUT_MS is delivered; anything else is retried after the next wait of
 * WEBHOOK_RETRY_SCHEDULE, and failed after the last.
 */
export async function sendDueDeliveries(deps: DeliveryDeps, sender: DeliverySender): Promise<number> {
  const schedule = retrySchedule(deps.env.WEBHOOK_RETRY_SCHEDULE);
  const claimed = await deps.webhookEndpoints.claimDue(SENDING, deps.env.WEBHOOK_TIMEOUT_MS + 5000);
  const attempts = await Promise.all(claimed.map((delivery) => sendOne(deps, sender, delivery, schedule)));
  await deps.webhookEndpoints.recordAttempts(attempts, DISABLE_AFTER_MS);
  await countDeliveries(deps, claimed);
  return claimed.length;
}

/** Every attempt is a delivery of the connector's organization in its usage (docs/operations.md). */
async function countDeliveries(deps: DeliveryDeps, claimed: readonly ClaimedDelivery[]): Promise<void> {
  const { usage, connectors } = deps;
  if (!usage || !connectors || claimed.length === 0) return;
  const perConnector = new Map<string, number>();
  for (const delivery of claimed) {
    perConnector.set(delivery.connector_id, (perConnector.get(delivery.connector_id) ?? 0) + 1);
  }
  for (const [connectorId, count] of perConnector) {
    const organizationId = (await connectors.findForSync(connectorId))?.organization_id;
    if (organizationId) usage.add(organizationId, connectorId, 'webhook_deliveries', count);
  }
}

async function sendOne(
  deps: DeliveryDeps,
  sender: DeliverySender,
  delivery: ClaimedDelivery,
  schedule: number[],
): Promise<DeliveryAttempt> {
  const attemptedAt = new Date();
  const started = performance.now();
  const id = changeEventId(delivery.connector_id, Number(delivery.seq));
  let httpStatus: number | null = null;
  let error: string | null = null;
  try {
    const secret = deps.cipher.decrypt(delivery.secret_ciphertext) as string;
    const headers = signedHeaders(secret, { id, body: delivery.payload, at: attemptedAt });
    const outcome = await sender.send(delivery.url, headers, delivery.payload);
    if ('status' in outcome) httpStatus = outcome.status;
    else error = outcome.error;
  } catch (cause) {
    error = cause instanceof Error ? cause.message : String(cause);
  }
  const latencyMs = Math.round(performance.now() - started);
  const delivered = httpStatus !== null && httpStatus >= 200 && httpStatus < 300;
  const wait = schedule[delivery.attempts];
  deps.logger.debug('webhook delivery attempt', {
    webhook_id: id,
    endpoint_id: delivery.endpoint_id,
    status: httpStatus,
    error,
    latency_ms: latencyMs,
  });
  return {
    delivery,
    outcome: { attemptedAt, httpStatus, error, latencyMs },
    next: delivered
      ? { delivered: true }
      : { delivered: false, retryAt: wait === undefined ? null : new Date(Date.now() + wait) },
  };
}

/** Runs fan-out and sending in a loop until stopped; errors are logged and the loop goes on. */
export function startCustomerDeliveries(deps: DeliveryDeps): () => Promise<void> {
  const sender = createDeliverySender({
    allowPrivate: deps.env.WEBHOOK_ALLOW_PRIVATE === '1',
    timeoutMs: deps.env.WEBHOOK_TIMEOUT_MS,
  });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const tick = async () => {
    let busy = false;
    try {
      const queued = await fanOutChanges(deps);
      const sent = await sendDueDeliveries(deps, sender);
      busy = queued > 0 || sent > 0;
    } catch (error) {
      deps.logger.warn('webhook deliveries round failed', { error });
    }
    if (!stopped) timer = setTimeout(() => (running = tick()), busy ? 0 : POLL_MS);
  };
  running = tick();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
    await sender.close();
  };
}
