import { readFileSync } from 'node:fs';
import { percentile, table } from './stats.ts';

/** An X-Request-Id naming the query kind (its letters and digits) and the request's number: `eq-id.17`. */
export function stepsRequestId(kind: string, i: number): string {
  return `${kind.replace(/[^A-Za-z0-9]+/g, '-')}.${i}`;
}

/**
 * The API's REQUEST_STEPS_FILE (apps/api/src/request-steps.ts) as one table per query kind: for each step, in the
 * order of their medians, the median µs since the request's head was parsed and the median step from the one before.
 */
export function stepsReport(file: string): string {
  /** Per kind: each step's times since the head was parsed and since the step before, and the requests seen. */
  const byKind = new Map<
    string,
    { requests: number; promises: number[]; steps: Map<string, { ats: number[]; deltas: number[] }> }
  >();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line === '') continue;
    const { id, steps, promises } = JSON.parse(line) as {
      id: string | null;
      steps: [string, number][];
      promises: number;
    };
    // Requests the bench did not name (its token request) are not searches.
    if (id === null) continue;
    const kind = id.slice(0, id.lastIndexOf('.'));
    const entry = byKind.get(kind) ?? { requests: 0, promises: [] as number[], steps: new Map() };
    byKind.set(kind, entry);
    entry.requests++;
    entry.promises.push(promises);
    steps.forEach(([step, at], i) => {
      const times = entry.steps.get(step) ?? { ats: [], deltas: [] };
      entry.steps.set(step, times);
      times.ats.push(at);
      times.deltas.push(at - (i > 0 ? steps[i - 1]![1] : 0));
    });
  }
  const median = (list: number[]) =>
    percentile(
      [...list].sort((a, b) => a - b),
      0.5,
    );
  const out: string[] = [];
  for (const [kind, { requests, promises, steps }] of byKind) {
    const rows = [...steps]
      .map(([step, { ats, deltas }]) => ({ step, at: median(ats), delta: median(deltas), n: ats.length }))
      .sort((a, b) => a.at - b.at);
    out.push(
      `\n${kind}: ${requests} requests at 1 in flight (µs, medians; ${median(promises)} promises made per request)`,
      table(
        ['step', 'since parsed', 'since previous step', 'requests'],
        rows.map((r) => [r.step, r.at.toFixed(0), r.delta.toFixed(0), String(r.n)]),
      ),
    );
  }
  return out.join('\n');
}
