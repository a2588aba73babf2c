/**
 * The load generator of `pnpm bench:changes`, in its own process (forked by changes-bench.ts), so the platform's
 * processes are what is measured: the Orb upstream (the bench's indexed listing), a customer's webhook receiver,
 * and on command a stream of upstream edits at a fixed rate, each announced by Orb's signed webhook. The receiver
 * reports every delivery (webhook-id, record, event number, when it arrived) and can be taken down (503) and back.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomHex } from '../simulators/kit/webhooks.ts';
import { orbCustomerEvent, orbWebhookSender } from '../simulators/orb/webhooks.ts';
import { startBenchOrbUpstream } from './orb-upstream.ts';

export type ChangesCommand =
  | { type: 'subscribe'; url: string; secret: string }
  | { type: 'stream'; perSecond: number; seconds: number }
  | { type: 'receiver'; up: boolean }
  | { type: 'stop' };

export type ChangesLoadEvent =
  | { type: 'ready'; upstream: { url: string; apiKey: string }; receiverUrl: string }
  | {
      type: 'streamed';
      changes: number;
      refused: number;
      /** Why, by status or error message: how many. */
      refusals: Record<string, number>;
      sentSeconds: number;
      ackedSeconds: number;
    }
  | { type: 'delivered'; webhookId: string; key: string; changedAt: string; arrivedAt: number; ok: boolean };

const send = (event: ChangesLoadEvent) => process.send?.(event);

const upstream = await startBenchOrbUpstream({
  customers: Number(process.env.CHANGES_CUSTOMERS ?? 1000),
  subscriptionsPerCustomer: 0,
  plans: 1,
  from: '2023-01-01T00:00:00Z',
});
const sender = orbWebhookSender();
let receiverUp = true;
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const arrivedAt = Date.now();
    const body = JSON.parse(Buffer.concat(chunks).toString()) as { key: string; changed_at: string };
    const ok = receiverUp;
    send({
      type: 'delivered',
      webhookId: String(req.headers['webhook-id']),
      key: body.key,
      changedAt: body.changed_at,
      arrivedAt,
      ok,
    });
    res.writeHead(ok ? 200 : 503).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));

async function stream(perSecond: number, seconds: number): Promise<void> {
  const customers = upstream.data.customers;
  const total = Math.round(perSecond * seconds);
  const started = performance.now();
  let refused = 0;
  const refusals: Record<string, number> = {};
  const refuse = (why: string) => {
    refused++;
    refusals[why] = (refusals[why] ?? 0) + 1;
  };
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / perSecond - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    // Each change edits the next customer in turn, so a record changes again only after every other one did.
    const customer = customers[i % customers.length]!;
    customer.email = `edit-${i}-${randomHex(3)}@example.com`;
    const { eventId, body } = orbCustomerEvent('customer.edited', { id: customer.id });
    pending.push(
      sender.emit(body, eventId).then(
        (status) => {
          if (status !== 202) refuse(String(status));
        },
        (error: Error) => refuse(String((error.cause as Error | undefined)?.message ?? error.message)),
      ),
    );
  }
  const sentSeconds = (performance.now() - started) / 1000;
  await Promise.all(pending);
  // Sent: when the last edit left (the generator's own pace); acknowledged: when the platform had accepted them all.
  send({
    type: 'streamed',
    changes: total,
    refused,
    refusals,
    sentSeconds,
    ackedSeconds: (performance.now() - started) / 1000,
  });
}

process.on('message', (command: ChangesCommand) => {
  if (command.type === 'subscribe') sender.subscribe(command.url, command.secret);
  if (command.type === 'receiver') receiverUp = command.up;
  if (command.type === 'stream') void stream(command.perSecond, command.seconds);
  if (command.type === 'stop') {
    receiver.closeAllConnections();
    receiver.close();
    void upstream.close().then(() => process.exit(0));
  }
});
send({
  type: 'ready',
  upstream: { url: upstream.url, apiKey: upstream.apiKey },
  receiverUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
});
