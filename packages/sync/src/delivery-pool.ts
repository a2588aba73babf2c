import { intervalMs } from '@conduit/config';
import { changeEventId, type DeliverySender, signedHeaders } from '@conduit/customer-webhooks';
import type { ClaimedDelivery, DeliveryAttempt } from '@conduit/db';
import type { SyncDeps } from './deps.ts';

export type DeliveryDeps = Pick<SyncDeps, 'env' | 'logger' | 'changeFeed' | 'webhookEndpoints' | 'cipher'>;

/**
 * Deliveries one worker sends at once. Each is independent: as one ends, its outcome is recorded and another is
 * claimed, so no send waits for a slower one (docs/changes.md, "Sharing the senders").
 */
const SENDERS = 64;
/**
 * Deliveries in flight at once, across every worker, to one endpoint, and for one organization: a tenant whose
 * receivers are slow (or who replays a whole feed) holds at most this share of the senders, the rest stay free for
 * everyone else. Well under SENDERS so that a few such tenants still leave room.
 */
const ENDPOINT_IN_FLIGHT = 8;
const ORGANIZATION_IN_FLIGHT = 16;
/**
 * An attempt this slow (a quarter of the timeout or more, timeouts included) makes its endpoint slow for
 * SLOW_FOR_MS: one delivery in flight at a time until a quick answer.
 */
const SLOW_SHARE_OF_TIMEOUT = 0.25;
const SLOW_FOR_MS = 60_000;
/** How often an idle pool looks for due deliveries. */
const POLL_MS = 200;
/** An endpoint failing this long without one success is disabled. */
const DISABLE_AFTER_MS = 5 * 24 * 3_600_000;

/** The waits before each retry (WEBHOOK_RETRY_SCHEDULE), in milliseconds. */
function retrySchedule(schedule: string): number[] {
  return schedule.split(',').map((step) => intervalMs(step.trim()));
}

/**
 * Sends due deliveries until `signal` aborts, up to SENDERS at once, each under a lease a little longer than its
 * timeout: a worker killed mid-delivery leaves it leased, and once the lease runs out another worker sends it
 * again, with the same webhook-id (at least once). Finished attempts are recorded together, then their slots are
 * claimed again; an idle pool polls every POLL_MS. Resolves once every send in flight is recorded.
 */
export async function runDeliveryPool(deps: DeliveryDeps, sender: DeliverySender, signal: AbortSignal): Promise<void> {
  const schedule = retrySchedule(deps.env.WEBHOOK_RETRY_SCHEDULE);
  const leaseMs = deps.env.WEBHOOK_TIMEOUT_MS + 5000;
  const slow = { afterMs: deps.env.WEBHOOK_TIMEOUT_MS * SLOW_SHARE_OF_TIMEOUT, forMs: SLOW_FOR_MS };
  const finished: DeliveryAttempt[] = [];
  let inFlight = 0;
  let wake: (() => void) | undefined;
  const nudge = () => wake?.();
  signal.addEventListener('abort', nudge);
  const record = async () => {
    const batch = finished.splice(0);
    if (batch.length === 0) return;
    try {
      await deps.webhookEndpoints.recordAttempts(batch, DISABLE_AFTER_MS, slow);
    } catch (error) {
      // Their leases run out and they are sent again (at least once).
      deps.logger.warn('webhook delivery attempts not recorded', { error, count: batch.length });
    }
    inFlight -= batch.length;
  };
  while (!signal.aborted || inFlight > 0) {
    await record();
    if (!signal.aborted && inFlight < SENDERS) {
      try {
        const claimed = await deps.webhookEndpoints.claimDue(SENDERS - inFlight, leaseMs, {
          endpoint: ENDPOINT_IN_FLIGHT,
          organization: ORGANIZATION_IN_FLIGHT,
        });
        for (const delivery of claimed) {
          inFlight += 1;
          void sendOne(deps, sender, delivery, schedule).then((attempt) => {
            finished.push(attempt);
            nudge();
          });
        }
      } catch (error) {
        deps.logger.warn('webhook deliveries claim failed', { error });
      }
    }
    if (finished.length > 0) continue;
    if (signal.aborted && inFlight === 0) break;
    // Until a send ends (its slot is claimed again at once) or the poll interval passes.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, POLL_MS);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    wake = undefined;
  }
  signal.removeEventListener('abort', nudge);
}

/**
 * One attempt of a claimed delivery, never throwing: a 2xx within WEBHOOK_TIMEOUT_MS is delivered; anything else is
 * retried after the next wait of WEBHOOK_RETRY_SCHEDULE, and failed after the last.
 */
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
