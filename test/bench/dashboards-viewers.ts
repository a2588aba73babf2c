/**
 * The viewers of `pnpm bench:dashboards`, in their own process (forked by dashboards-bench.ts): on command, N
 * viewers keep the dashboard (dashboards-panels.ts) open against one API for a while, the way the console does:
 * every panel asked again every `refreshMs` (viewers spread evenly over it), and on the connector's live change
 * stream (the client's `follow()`, GET .../changes/stream) every panel asked again `settleMs` after a change arrives
 * and at most every `minIntervalMs` while changes keep coming (the console's own waits,
 * apps/console/src/components/live-changes.ts, which gather a burst of changes into one question). Each viewer sends `If-None-Match` with the ETag it holds, as a browser does, asks a panel again
 * only once its previous answer came back, holds six connections (a browser's per host), and asks again after a
 * 429's Retry-After as the client does.
 *
 * Reports to the parent: every `checkEvery`-th answer served (a 304 serves the body held) for the truth check,
 * each payment a viewer sees in the latest-payments panel for the first time, and at the end each answer's
 * latency and what the API said of it.
 */
import { Conduit } from '@conduit/client';
import type { ServedAnswer } from './dashboards-oracle.ts';
import { LATEST_PAYMENTS, PANELS, type PanelAnswer } from './dashboards-panels.ts';
import { KeepAliveClient } from './http-client.ts';

export interface ViewRun {
  readonly type: 'run';
  readonly side: string;
  readonly url: string;
  readonly token: string;
  readonly connectorId: string;
  readonly viewers: number;
  readonly durationMs: number;
  readonly refreshMs: number;
  readonly settleMs: number;
  /** While changes keep coming, the panels are asked again at most this often (the console's MIN_INTERVAL_MS). */
  readonly minIntervalMs: number;
  /** Whether each viewer follows the live stream (else it only asks every `refreshMs`). */
  readonly live: boolean;
  readonly checkEvery: number;
}

export type ViewersCommand = ViewRun | { type: 'stop' };

/** A payment seen by one viewer: `token` is `<invoice id>@<paid_at ms>`. */
export interface Seen {
  readonly side: string;
  readonly token: string;
  readonly at: number;
}

export interface ViewStats {
  readonly latencies: number[];
  /** 200 answers by meta.cache (`none`: the answer says nothing), and 304s. */
  readonly hits: number;
  readonly misses: number;
  readonly uncached: number;
  readonly notModified: number;
  /** 429s asked again after their Retry-After (their wait is in the answer's latency). */
  readonly limited: number;
  readonly errors: number;
  readonly firstError: string | undefined;
}

export type ViewersEvent =
  | { type: 'ready' }
  | { type: 'reports'; served: ServedAnswer[]; seen: Seen[] }
  | { type: 'ran'; side: string; stats: ViewStats };

const send = (event: ViewersEvent) => process.send?.(event);
const REPORT_EVERY_MS = 200;
const BROWSER_CONNECTIONS = 6;
const MAX_RETRIES = 3;
const ROUND_GRACE_MS = 10_000;
const latestPayments = PANELS.findIndex((p) => p.name === LATEST_PAYMENTS);

async function run(command: ViewRun): Promise<ViewStats> {
  const stats = {
    latencies: [] as number[],
    hits: 0,
    misses: 0,
    uncached: 0,
    notModified: 0,
    limited: 0,
    errors: 0,
  };
  let firstError: string | undefined;
  let served: ServedAnswer[] = [];
  let seen: Seen[] = [];
  const flush = () => {
    if (served.length > 0 || seen.length > 0) send({ type: 'reports', served, seen });
    served = [];
    seen = [];
  };
  const reporter = setInterval(flush, REPORT_EVERY_MS);
  const headers = { authorization: `Bearer ${command.token}` };
  const base = `/api/v1/integrations/connectors/${command.connectorId}`;
  let answers = 0;
  let stopped = false;
  const inFlight = new Set<Promise<void>>();

  const viewer = (v: number) => {
    const client = new KeepAliveClient(command.url, BROWSER_CONNECTIONS);
    const etags: (string | undefined)[] = PANELS.map(() => undefined);
    const bodies: (PanelAnswer | undefined)[] = PANELS.map(() => undefined);
    const asking = PANELS.map(() => false);
    const again = PANELS.map(() => false);
    const payments = new Set<string>();
    const ask = (p: number): void => {
      if (stopped) return;
      if (asking[p]) {
        again[p] = true;
        return;
      }
      asking[p] = true;
      const panel = PANELS[p]!;
      let sentAt = Date.now();
      const started = performance.now();
      const etag = etags[p];
      const conditional: Record<string, string> = etag ? { 'if-none-match': etag } : {};
      // As the client (packages/client, transport.ts) does with a safe call: a 429 is asked again after its
      // Retry-After (the API limits the costly searches an organization runs at once), three times at most.
      const post = async (attempt = 0): Promise<Awaited<ReturnType<KeepAliveClient['post']>>> => {
        sentAt = Date.now();
        const response = await client.post(`${base}/${panel.route}`, panel.body, { ...headers, ...conditional });
        if (response.status !== 429 || attempt >= MAX_RETRIES) return response;
        stats.limited++;
        const retryAfter = Number(response.headers['retry-after'] ?? Number.NaN);
        const waitMs = Number.isFinite(retryAfter) ? retryAfter * 1000 : 250 * 2 ** attempt;
        await new Promise((resolve) => setTimeout(resolve, waitMs));
        return post(attempt + 1);
      };
      const request = post()
        .then((response) => {
          const latency = performance.now() - started;
          if (response.status === 200) {
            const body = JSON.parse(response.text) as PanelAnswer;
            bodies[p] = body;
            etags[p] = typeof response.headers.etag === 'string' ? response.headers.etag : undefined;
            const cache = body.meta.cache;
            if (cache === 'hit') stats.hits++;
            else if (cache === 'miss') stats.misses++;
            else stats.uncached++;
          } else if (response.status === 304 && bodies[p]) {
            stats.notModified++;
          } else {
            throw new Error(`${panel.name} answered ${response.status}: ${response.text.slice(0, 300)}`);
          }
          stats.latencies.push(latency);
          const body = bodies[p]!;
          const receivedAt = Date.now();
          if (++answers % command.checkEvery === 0) {
            const asOf = typeof body.meta.as_of === 'string' ? body.meta.as_of : undefined;
            served.push({ side: command.side, panel: p, sentAt, receivedAt, status: response.status, asOf, body });
          }
          if (p === latestPayments) {
            for (const row of body.data) {
              const token = `${String(row.id)}@${Date.parse(String(row.paid_at))}`;
              if (payments.has(token)) continue;
              payments.add(token);
              seen.push({ side: command.side, token, at: receivedAt });
            }
          }
        })
        .catch((error: unknown) => {
          stats.errors++;
          firstError ??= String(error);
        })
        .finally(() => {
          inFlight.delete(request);
          asking[p] = false;
          if (again[p]) {
            again[p] = false;
            ask(p);
          }
        });
      inFlight.add(request);
    };
    const askAll = () => {
      for (let p = 0; p < PANELS.length; p++) ask(p);
    };

    // Viewers spread over the refresh interval, as people who opened the dashboard at different moments.
    let refresh: ReturnType<typeof setInterval> | undefined;
    const first = setTimeout(
      () => {
        askAll();
        refresh = setInterval(askAll, command.refreshMs);
      },
      (v * command.refreshMs) / command.viewers,
    );
    const live = new AbortController();
    let settle: ReturnType<typeof setTimeout> | undefined;
    let askedAt = Number.NEGATIVE_INFINITY;
    const conduit = new Conduit({ baseUrl: command.url, accessToken: command.token });
    void (async () => {
      if (!command.live) return;
      try {
        const changes = conduit.connector(command.connectorId, 'Orb');
        for await (const _ of changes.follow({ after: 'latest', entity: 'invoices', signal: live.signal })) {
          settle ??= setTimeout(
            () => {
              settle = undefined;
              askedAt = Date.now();
              askAll();
            },
            Math.max(command.settleMs, askedAt + command.minIntervalMs - Date.now()),
          );
        }
      } catch (error) {
        if (!live.signal.aborted) firstError ??= `change stream: ${String(error)}`;
      }
    })();
    return () => {
      clearTimeout(first);
      clearInterval(refresh);
      clearTimeout(settle);
      live.abort();
      return client;
    };
  };

  const stops = Array.from({ length: command.viewers }, (_, v) => viewer(v));
  await new Promise((resolve) => setTimeout(resolve, command.durationMs));
  stopped = true;
  const clients = stops.map((stop) => stop());
  // Answers still coming after the end count for a while; what has not come by then is cut (an error).
  let graceOver = false;
  const grace = new Promise<void>((resolve) => setTimeout(resolve, ROUND_GRACE_MS)).then(() => {
    graceOver = true;
  });
  while (inFlight.size > 0 && !graceOver) await Promise.race([Promise.all([...inFlight]), grace]);
  const cut = inFlight.size;
  for (const client of clients) client.close();
  clearInterval(reporter);
  flush();
  if (cut > 0) firstError ??= `${cut} requests still unanswered ${ROUND_GRACE_MS} ms after the end`;
  return { ...stats, errors: stats.errors + cut, firstError };
}

process.on('message', (command: ViewersCommand) => {
  if (command.type === 'run') void run(command).then((stats) => send({ type: 'ran', side: command.side, stats }));
  if (command.type === 'stop') process.exit(0);
});
send({ type: 'ready' });
