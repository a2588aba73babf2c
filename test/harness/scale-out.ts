import { once } from 'node:events';
import { createServer } from 'node:net';

/** A port nobody listens on right now (never a fixed one: other people run things on this machine). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** `conduit_sync_runs_total` of one worker's /metrics, summed by outcome (0 when it cannot be reached). */
export async function syncRunsByOutcome(metricsPort: number): Promise<Record<string, number>> {
  const totals: Record<string, number> = {};
  const text = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
    .then((r) => r.text())
    .catch(() => '');
  for (const line of text.split('\n')) {
    const match = /^conduit_sync_runs_total\{[^}]*outcome="([^"]+)"[^}]*\} (\d+(?:\.\d+)?)$/.exec(line);
    if (match) totals[match[1]!] = (totals[match[1]!] ?? 0) + Number(match[2]);
  }
  return totals;
}
