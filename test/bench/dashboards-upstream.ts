/**
 * The Orb upstream of `pnpm bench:dashboards`, in its own process (forked by dashboards-bench.ts): serves the
 * benchmark's invoices by id (invoice-records.ts, as the index was loaded, with the payments made since) and, on
 * command, pays invoices at a fixed rate, each payment announced by Orb's signed webhook
 * (`invoice.payment_succeeded`), which makes the worker read the invoice again. One payment in `insideEvery` is of
 * an invoice inside the dashboard's window, the others of invoices before it. Each payment is reported to the
 * parent with the instant its webhook left.
 *
 *   DASH_DOCS   the invoices (as BENCH_DOCS)
 */
import { Hono } from 'hono';
import { listen } from '../simulators/kit/server.ts';
import { randomHex } from '../simulators/kit/webhooks.ts';
import { orbWebhookSender } from '../simulators/orb/webhooks.ts';
import { WINDOW_FROM_MS } from './dashboards-panels.ts';
import { invoiceId, invoiceInstant, invoiceRecord } from './invoice-records.ts';

export type UpstreamCommand =
  | { type: 'subscribe'; url: string; secret: string }
  | { type: 'stream'; perSecond: number; insideEvery: number }
  | { type: 'stop-stream' }
  | { type: 'stop' };

export type UpstreamEvent =
  | { type: 'ready'; url: string; apiKey: string }
  /** An invoice paid upstream; `sentAt`: when its webhook left. */
  | { type: 'paid'; key: string; inside: boolean; paidAtMs: number; sentAt: number }
  | { type: 'streamed'; payments: number; refused: Record<string, number> };

const send = (event: UpstreamEvent) => process.send?.(event);
const DOCS = Number(process.env.DASH_DOCS);
const API_KEY = 'orb-dashboards-key';

const position = new Map<string, number>();
const inside: number[] = [];
const before: number[] = [];
for (let i = 0; i < DOCS; i++) {
  position.set(invoiceId(i), i);
  if (invoiceRecord(i, DOCS).status !== 'issued') continue;
  (invoiceInstant(i, DOCS) >= WINDOW_FROM_MS ? inside : before).push(i);
}
if (inside.length === 0 || before.length === 0) throw new Error(`${DOCS} invoices leave no issued one to pay`);
/** Invoices as paid since the load, by id; the others are as loaded. */
const paid = new Map<string, Record<string, unknown>>();
const invoice = (id: string) => paid.get(id) ?? invoiceRecord(position.get(id)!, DOCS);

const app = new Hono();
app.get('/v1/invoices/:id', (c) => {
  if (c.req.header('authorization') !== `Bearer ${API_KEY}`) return c.json({ title: 'Unauthorized' }, 401);
  const id = c.req.param('id');
  if (!position.has(id)) return c.json({ title: 'Not found' }, 404);
  return c.json(invoice(id));
});
const server = await listen(app);
const sender = orbWebhookSender();

let streaming = false;

/** Pays invoices at `perSecond` until told to stop, paced against the start so a slow tick does not lower the rate. */
async function stream(perSecond: number, insideEvery: number): Promise<void> {
  streaming = true;
  const refused: Record<string, number> = {};
  const pending: Promise<void>[] = [];
  const started = performance.now();
  let n = 0;
  for (; streaming; n++) {
    const wait = started + (n * 1000) / perSecond - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const isInside = n % insideEvery === 0;
    // Each in turn, then again from the first (a paid invoice paid again moves its paid_at).
    const pool = isInside ? inside : before;
    const nth = isInside ? n / insideEvery : n - Math.floor(n / insideEvery) - 1;
    const id = invoiceId(pool[nth % pool.length]!);
    const paidAt = new Date();
    const record = { ...invoice(id), status: 'paid', amount_due: '0.00', paid_at: paidAt.toISOString() };
    paid.set(id, record);
    const eventId = randomHex(11);
    const body = JSON.stringify({
      id: eventId,
      created_at: paidAt.toISOString(),
      type: 'invoice.payment_succeeded',
      properties: {},
      invoice: record,
    });
    send({ type: 'paid', key: id, inside: isInside, paidAtMs: paidAt.getTime(), sentAt: Date.now() });
    pending.push(
      sender.emit(body, eventId).then(
        (status) => {
          if (status !== 202) refused[String(status)] = (refused[String(status)] ?? 0) + 1;
        },
        (error: Error) => {
          refused[error.message] = (refused[error.message] ?? 0) + 1;
        },
      ),
    );
  }
  await Promise.all(pending);
  send({ type: 'streamed', payments: n, refused });
}

process.on('message', (command: UpstreamCommand) => {
  if (command.type === 'subscribe') sender.subscribe(command.url, command.secret);
  if (command.type === 'stream') void stream(command.perSecond, command.insideEvery);
  if (command.type === 'stop-stream') streaming = false;
  if (command.type === 'stop') void server.close().then(() => process.exit(0));
});
send({ type: 'ready', url: `${server.url}/v1`, apiKey: API_KEY });
