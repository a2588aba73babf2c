/**
 * The load generator of the SQL phase of `pnpm bench:noisy-neighbour`, in its own process: organization A floods
 * `POST .../sql` with GROUP BY queries from `concurrency` loops and abandons each after `abandonAfterMs` (the
 * connection closes, as a client that gave up), while organization B runs a simple search one at a time. Prints
 * one JSON line: every answer's who, kind, status (-2: abandoned by A) and latency.
 *
 *   node test/bench/noisy-neighbour-sql-load.ts '<json SqlLoadPlan>'
 */
import { KeepAliveClient } from './http-client.ts';
import type { LoadAnswer, LoadPlan } from './noisy-neighbour-load.ts';

export interface SqlLoadPlan extends LoadPlan {
  /** A abandons each request after a random time up to this. */
  readonly abandonAfterMs: number;
}

/** Status of a request A abandoned before its answer. */
const ABANDONED = -2;

/**
 * GROUP BY queries within every per-query limit: a scanning WHERE whose HAVING rejects every group (the shape that
 * once ran thousands of batches), every invoice a group, and an ORDER BY an aggregate that reads every group.
 */
const GROUP_BYS: readonly { kind: string; query: string; limit: number }[] = [
  {
    kind: 'scan, HAVING rejects all',
    query:
      "SELECT id, COUNT(*) FROM invoices WHERE NOT (memo LIKE '%a_b_c_d_e_f_g_h%') GROUP BY id HAVING COUNT(*) > 5",
    limit: 1,
  },
  { kind: 'a group per invoice', query: 'SELECT id, SUM(total) FROM invoices GROUP BY id ORDER BY id', limit: 10_000 },
  {
    kind: 'days by revenue',
    query:
      "SELECT DATE_TRUNC('day', invoice_date) AS day, COUNT(*), SUM(total) AS revenue FROM invoices GROUP BY 1 ORDER BY revenue DESC",
    limit: 100,
  },
];

async function main(plan: SqlLoadPlan): Promise<LoadAnswer[]> {
  const client = new KeepAliveClient(plan.apiUrl, 4);
  const answers: LoadAnswer[] = [];
  const deadline = performance.now() + plan.seconds * 1000;
  let sent = 0;
  const flood = async (loop: number) => {
    for (let i = loop; performance.now() < deadline; i += plan.concurrency) {
      const { kind, query, limit } = GROUP_BYS[i % GROUP_BYS.length]!;
      const started = performance.now();
      let status = 0;
      try {
        const response = await fetch(`${plan.apiUrl}/api/v1/integrations/connectors/${plan.a.connectorId}/sql`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${plan.a.token}`,
            'content-type': 'application/json',
            'x-request-id': `noisy-a-sql-${sent++}`,
          },
          body: JSON.stringify({ query, limit }),
          signal: AbortSignal.timeout(Math.round(Math.random() * plan.abandonAfterMs)),
        });
        await response.arrayBuffer();
        status = response.status;
      } catch (error) {
        status = (error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError' ? ABANDONED : -1;
      }
      answers.push({ who: 'A', kind, status, ms: performance.now() - started });
      // An eager client: told to come back, it does after a short pause.
      if (status === 429) await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };
  const victim = async () => {
    const body = JSON.stringify({
      entity: 'invoices',
      action: 'search',
      params: { query: { filter: { eq: { status: 'issued' } } }, limit: 5 },
    });
    for (let i = 0; performance.now() < deadline; i++) {
      const started = performance.now();
      let status = 0;
      try {
        const answer = await client.post(`/api/v1/integrations/connectors/${plan.b.connectorId}/execute`, body, {
          authorization: `Bearer ${plan.b.token}`,
          'x-request-id': `noisy-b-sql-${i}`,
        });
        status = answer.status;
      } catch {
        status = -1;
      }
      answers.push({ who: 'B', kind: 'eq status', status, ms: performance.now() - started });
    }
  };
  await Promise.all([...Array.from({ length: plan.concurrency }, (_, loop) => flood(loop)), victim()]);
  client.close();
  return answers;
}

const answers = await main(JSON.parse(process.argv[2] ?? '{}') as SqlLoadPlan);
process.stdout.write(`${JSON.stringify(answers)}\n`);
