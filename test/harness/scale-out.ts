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
