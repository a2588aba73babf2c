import { changeEventView, createDeliverySender } from '@conduit/customer-webhooks';
import type { MovedPair } from '@conduit/db';
import { type DeliveryDeps, runDeliveryPool } from './delivery-pool.ts';

/** Events read from the feed per endpoint and connector per round. */
const FAN_OUT_BATCH = 500;
/**
 * Deliveries one endpoint may have queued (pending) at once, and one organization over all its endpoints: a replay
 * from the start, or a receiver that is down, queues this many and the rest of the feed as they drain, so one
 * tenant's backlog never makes the queue every claim reads huge (docs/changes.md, "Sharing the senders").
 */
const ENDPOINT_BACKLOG = 1_000;
const ORGANIZATION_BACKLOG = 5_000;
/** How often the worker looks for new events when idle. */
const POLL_MS = 200;

/**
 * Turns new change-feed events into deliveries, for the enabled endpoints and followed connectors whose feed moved
 * past the endpoint's position (one query finds them), at most each endpoint's room in its backlog (docs/changes.md).
 * Runs in every worker; the positions' row locks keep one worker per endpoint and connector.
 */
export async function fanOutChanges(deps: DeliveryDeps): Promise<number> {
  let queued = 0;
  const pairs = await deps.webhookEndpoints.movedPairs({
    backlog: ENDPOINT_BACKLOG,
    organizationBacklog: ORGANIZATION_BACKLOG,
  });
  const room = new Map(pairs.map((pair) => [pair.endpoint_id, pair.room]));
  const organizationRoom = new Map(pairs.map((pair) => [pair.organization_id, pair.organization_room]));
  for (const pair of pairs) {
    const left = Math.min(room.get(pair.endpoint_id) ?? 0, organizationRoom.get(pair.organization_id) ?? 0);
    if (left <= 0) continue;
    const added = await deps.webhookEndpoints.fanOut(
      { id: pair.endpoint_id, created_at: pair.created_at },
      pair.connector_id,
      async (after) => {
        const events = await deps.changeFeed.read(pair.connector_id, { after, limit: Math.min(FAN_OUT_BATCH, left) });
        const accepted = events.filter((event) => accepts(pair, event));
        return {
          lastSeq: events.at(-1)?.seq ?? after,
          deliveries: accepted.map((event) => ({
            seq: event.seq,
            recordRef: `${event.entity}/${event.key}`,
            payload: JSON.stringify({ ...changeEventView(pair.connector_id, event), connector_id: pair.connector_id }),
          })),
        };
      },
    );
    room.set(pair.endpoint_id, (room.get(pair.endpoint_id) ?? 0) - added);
    organizationRoom.set(pair.organization_id, (organizationRoom.get(pair.organization_id) ?? 0) - added);
    queued += added;
  }
  return queued;
}

function accepts(endpoint: Pick<MovedPair, 'entities' | 'types'>, event: { entity: string; type: string }): boolean {
  return (
    (endpoint.entities === null || endpoint.entities.includes(event.entity)) &&
    (endpoint.types === null || endpoint.types.includes(event.type))
  );
}

/** Runs fan-out and the pool of senders until stopped; errors are logged and the loops go on. */
export function startCustomerDeliveries(deps: DeliveryDeps): () => Promise<void> {
  const sender = createDeliverySender({
    allowPrivate: deps.env.WEBHOOK_ALLOW_PRIVATE === '1',
    timeoutMs: deps.env.WEBHOOK_TIMEOUT_MS,
  });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let fanning: Promise<void> | undefined;
  const fanOutTick = async () => {
    let busy = false;
    try {
      busy = (await fanOutChanges(deps)) > 0;
    } catch (error) {
      deps.logger.warn('webhook fan-out round failed', { error });
    }
    if (!stopped) timer = setTimeout(() => (fanning = fanOutTick()), busy ? 0 : POLL_MS);
  };
  fanning = fanOutTick();
  const controller = new AbortController();
  const sending = runDeliveryPool(deps, sender, controller.signal);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    controller.abort();
    await Promise.all([fanning, sending]);
    await sender.close();
  };
}
