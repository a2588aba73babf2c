/**
 * The load generator of `pnpm bench:freshness`, in its own process (forked by freshness-bench.ts): runs the Orb
 * and incident.io simulators and, on command, streams upstream changes (new records) at a fixed rate, each
 * announced by the vendor's signed webhook when the phase uses webhooks. Every change is reported to the parent
 * with the instant it happened upstream.
 */
import { startIncidentIoSimulator } from '../simulators/incident-io/simulator.ts';
import type { SimulatedWebhooks } from '../simulators/kit/webhooks.ts';
import { startOrbSimulator } from '../simulators/orb/simulator.ts';

export type LoadCommand =
  | { type: 'subscribe'; kind: string; url: string; secret: string }
  | { type: 'unsubscribe'; kind: string }
  | { type: 'stream'; kind: string; perSecond: number; seconds: number }
  | { type: 'stop' };

export type LoadEvent =
  | { type: 'ready'; upstreams: Record<string, { baseUrl: string; credentials: Record<string, unknown> }> }
  | { type: 'change'; kind: string; entity: string; key: string; field: string; value: unknown; at: number }
  | { type: 'streamed'; kind: string; changes: number; refusedDeliveries: number; failedDeliveries: number };

const send = (event: LoadEvent) => process.send?.(event);

const orb = await startOrbSimulator({ customers: 300, subscriptionsPerCustomer: 0, plans: 1 });
const incidentIo = await startIncidentIoSimulator({ incidents: 200 });
const webhooks: Record<string, SimulatedWebhooks> = { Orb: orb.webhooks, 'Incident-Io': incidentIo.webhooks };
send({
  type: 'ready',
  upstreams: {
    Orb: { baseUrl: orb.url, credentials: { api_key: orb.apiKey } },
    'Incident-Io': { baseUrl: incidentIo.url, credentials: { api_key: incidentIo.apiKey } },
  },
});

async function stream(kind: string, perSecond: number, seconds: number): Promise<void> {
  const source = webhooks[kind]!;
  const total = Math.round(perSecond * seconds);
  const started = performance.now();
  let refused = 0;
  let failed = 0;
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    // Paced against the start, so a slow tick does not lower the rate.
    const due = started + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const at = Date.now();
    pending.push(
      source.create!().then(
        (change) => {
          if (change.status !== null && change.status !== 202) refused++;
          send({
            type: 'change',
            kind,
            entity: change.entity,
            key: change.key,
            field: change.field!,
            value: change.value,
            at,
          });
        },
        () => {
          failed++;
        },
      ),
    );
  }
  await Promise.all(pending);
  send({ type: 'streamed', kind, changes: total, refusedDeliveries: refused, failedDeliveries: failed });
}

process.on('message', (command: LoadCommand) => {
  if (command.type === 'subscribe') webhooks[command.kind]?.sender.subscribe(command.url, command.secret);
  if (command.type === 'unsubscribe') webhooks[command.kind]?.sender.unsubscribe();
  if (command.type === 'stream') void stream(command.kind, command.perSecond, command.seconds);
  if (command.type === 'stop') {
    void Promise.all([orb.close(), incidentIo.close()]).then(() => process.exit(0));
  }
});
