/**
 * bench:noisy-neighbour's phase "slow-receiver delivery flood" (docs/changes.md, "Sharing the senders"): the
 * attacker organization (A) subscribes 10 endpoints answering after 9.5 s to its connector and replays each from the
 * start of a feed of BENCH_FLOOD_EVENTS events; meanwhile a change of the victim's (B) is applied every 2 s and the
 * time until it reaches B's own receiver is measured, while B keeps running its searches. A real worker process
 * sends the deliveries.
 *
 * Endpoints are written through the repository and replays through its rewind (what POST .../replay does after
 * its checks), so the API process keeps its own settings; B's changes are appended to its feed as the copy does
 * once it applied one (what a sync page or a webhook's re-read ends with), so the delivery time starts there.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiRuntime } from '@conduit/api';
import { WorkerProcess } from '../harness/worker-process.ts';
import type { LoadAnswer } from './noisy-neighbour-load.ts';
import { ms, percentile, verdict } from './stats.ts';

const SLOW_ANSWER_MS = 9_500;
const ATTACKER_ENDPOINTS = 10;
const CHANGE_EVERY_MS = 2_000;
/** A change not delivered this long after the flood's end counts as this late (a miss either way). */
const GRACE_MS = 15_000;
const DELIVERY_P95_GOAL_MS = 5_000;
const SEARCH_P95_GOAL_MS = 250;

export interface DeliveryFloodPlan {
  readonly deps: ApiRuntime['deps'];
  readonly attacker: { readonly organizationId: string; readonly connectorId: string };
  readonly victim: { readonly organizationId: string; readonly connectorId: string };
  readonly seconds: number;
  /** Events in A's feed that each of its endpoints replays. */
  readonly events: number;
  /** B's searches for `seconds` (the bench's load generator, A idle); their answers. */
  readonly searches: (seconds: number) => Promise<LoadAnswer[]>;
}

export interface DeliveryFloodResult {
  readonly searches: LoadAnswer[];
  /** A table row: changes, delivered, p50, p95, max delivery ms, A's calls answered. */
  readonly row: string[];
  readonly verdicts: string[];
}

/** Runs the phase; the worker, receivers and endpoints it made are gone when it resolves. */
export async function deliveryFlood(plan: DeliveryFloodPlan): Promise<DeliveryFloodResult> {
  const { deps } = plan;
  console.log(`phase: slow-receiver delivery flood for ${plan.seconds} s ...`);
  const arrivals = new Map<string, number>();
  let slowCalls = 0;
  let slowAnswered = 0;
  const slow = await listen(async (_path, _key) => {
    slowCalls += 1;
    await new Promise((resolve) => setTimeout(resolve, SLOW_ANSWER_MS));
    slowAnswered += 1;
  });
  const victimReceiver = await listen(async (_path, key) => {
    if (key && !arrivals.has(key)) arrivals.set(key, performance.now());
  });
  const worker = new WorkerProcess(deps.env, {
    WEBHOOK_ALLOW_HTTP: '1',
    WEBHOOK_ALLOW_PRIVATE: '1',
    // The bench's connectors have no upstream: their syncs fail at once on a closed local port.
    CONNECTOR_BASE_URL_ORB: 'http://127.0.0.1:9',
    LOG_LEVEL: 'warn',
  });
  const endpointIds: { organizationId: string; id: string }[] = [];
  try {
    // A's feed, as syncs would have written it.
    for (let from = 0; from < plan.events; from += 1000) {
      const changes = Array.from({ length: Math.min(1000, plan.events - from) }, (_, i) => ({
        key: `flood-${from + i}`,
        version: 1,
        contentHash: 'flood',
        recordJson: JSON.stringify({ id: `flood-${from + i}`, amount: from + i }),
      }));
      await deps.changeFeed.append(plan.attacker.connectorId, 'invoices', 'sync', changes);
    }
    const subscribe = async (organizationId: string, connectorId: string, url: string) => {
      const id = `we_${randomUUID().replaceAll('-', '')}`;
      await deps.webhookEndpoints.insert({
        id,
        organization_id: organizationId,
        url,
        description: 'bench:noisy-neighbour',
        connector_ids: [connectorId],
        entities: null,
        types: null,
        secret_ciphertext: deps.cipher.encrypt(`whsec_${randomBytes(24).toString('base64')}`),
      });
      endpointIds.push({ organizationId, id });
      return id;
    };
    await subscribe(plan.victim.organizationId, plan.victim.connectorId, `${victimReceiver.url}/victim`);
    for (let i = 0; i < ATTACKER_ENDPOINTS; i++) {
      const id = await subscribe(plan.attacker.organizationId, plan.attacker.connectorId, `${slow.url}/slow/${i}`);
      await deps.webhookEndpoints.rewind(id, [plan.attacker.connectorId], 0);
    }
    worker.start();
    // The flood has begun once A's receivers are called (the worker logs at warn only: no start line to wait for).
    const started = performance.now();
    while (slowCalls === 0) {
      if (performance.now() - started > 60_000) throw new Error(`no delivery in 60 s:\n${worker.output.join('\n')}`);
      await sleep(50);
    }
    const floodStart = performance.now();

    // B: one change every 2 s, and its searches, for the phase.
    const applied = new Map<string, number>();
    const changing = (async () => {
      while (performance.now() - floodStart < plan.seconds * 1000) {
        const key = `victim-${randomUUID()}`;
        applied.set(key, performance.now());
        await deps.changeFeed.append(plan.victim.connectorId, 'invoices', 'sync', [
          { key, version: 1, contentHash: key, recordJson: JSON.stringify({ id: key }) },
        ]);
        await sleep(CHANGE_EVERY_MS);
      }
    })();
    const searches = await plan.searches(plan.seconds);
    await changing;
    const deadline = performance.now() + GRACE_MS;
    while (arrivals.size < applied.size && performance.now() < deadline) await sleep(100);

    const times = [...applied].map(([key, at]) => (arrivals.get(key) ?? at + GRACE_MS * 4) - at).sort((x, y) => x - y);
    const delivered = [...applied.keys()].filter((key) => arrivals.has(key)).length;
    const p95 = percentile(times, 0.95);
    const fromB = searches.filter((x) => x.who === 'B');
    const searchP95 = percentile(
      fromB.map((x) => x.ms).sort((x, y) => x - y),
      0.95,
    );
    const failures = fromB.filter((x) => x.status !== 200).length;
    return {
      searches,
      row: [
        String(applied.size),
        String(delivered),
        ms(percentile(times, 0.5)),
        ms(p95),
        ms(times.at(-1) ?? Number.NaN),
        `${slowAnswered} of ${slowCalls}`,
      ],
      verdicts: [
        `${verdict(p95 <= DELIVERY_P95_GOAL_MS && delivered === applied.size)} delivery flood: B's delivery p95 ${ms(p95)} ms (goal <= ${DELIVERY_P95_GOAL_MS}), ${delivered} of ${applied.size} delivered`,
        `${verdict(searchP95 <= SEARCH_P95_GOAL_MS && failures === 0)} delivery flood: B's search p95 ${ms(searchP95)} ms (goal <= ${SEARCH_P95_GOAL_MS}), ${failures} failures`,
      ],
    };
  } finally {
    await worker.kill('SIGTERM');
    for (const { organizationId, id } of endpointIds) await deps.webhookEndpoints.delete(organizationId, id);
    await Promise.all([slow.close(), victimReceiver.close()]);
  }
}

/** A receiver on 127.0.0.1: `handle` runs for each call (with the event's key), then the call is answered 200. */
async function listen(
  handle: (path: string, key: string | undefined) => Promise<void>,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let key: string | undefined;
    try {
      key = (JSON.parse(Buffer.concat(chunks).toString()) as { key?: string }).key;
    } catch {
      key = undefined;
    }
    await handle(req.url ?? '', key);
    res.writeHead(200).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const sleep = (msToWait: number) => new Promise((resolve) => setTimeout(resolve, msToWait));
