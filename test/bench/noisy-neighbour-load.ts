/**
 * The load generator of `pnpm bench:noisy-neighbour`, in its own process so its CPU is not the API's: organization
 * A floods the search with the costliest queries the budget allows from `concurrency` loops (0: no flood), while
 * organization B runs its cheap searches one after another, one loop per kind. Prints one JSON line: every
 * answer's kind, status and latency.
 *
 *   node test/bench/noisy-neighbour-load.ts '<json LoadPlan>'
 */
import { KeepAliveClient } from './http-client.ts';

export interface LoadPlan {
  readonly apiUrl: string;
  readonly seconds: number;
  readonly concurrency: number;
  readonly a: { readonly token: string; readonly connectorId: string };
  readonly b: { readonly token: string; readonly connectorId: string };
}

export interface LoadAnswer {
  readonly who: 'A' | 'B';
  readonly kind: string;
  readonly status: number;
  readonly ms: number;
}

/** Each within the cost budget (docs/search-cost.md), near its top. */
const COSTLY: readonly { kind: string; params: Record<string, unknown> }[] = [
  {
    kind: 'scanning like',
    params: { query: { filter: { like: { memo: '%q%z%x%j%q%z%x%j%q%z%x%j%q%z%x%' } } }, limit: 10 },
  },
  {
    kind: '10 long likes',
    params: {
      query: { filter: { or: Array.from({ length: 10 }, (_, i) => ({ like: { memo: `${i}`.padEnd(256, 'q') } })) } },
      limit: 10,
    },
  },
  {
    kind: '25 fuzzy words',
    params: {
      query: { filter: { fuzzy: { memo: Array.from({ length: 25 }, (_, i) => `busines${i}`).join(' ') } } },
      limit: 10,
    },
  },
  {
    kind: 'big aggregations',
    params: {
      query: { filter: { like: { memo: '%a%e%i%o%u%y%a%e%i%o%u%' } } },
      aggregate: { top: { count_by: 'status', size: 1000 }, days: { histogram: 'invoice_date', interval: 'day' } },
      limit: 0,
    },
  },
];

const CHEAP: readonly { kind: string; params: Record<string, unknown> }[] = [
  { kind: 'eq status', params: { query: { filter: { eq: { status: 'issued' } } }, limit: 10 } },
  { kind: 'like memo', params: { query: { filter: { like: { memo: '%business%' } } }, limit: 10 } },
  { kind: 'count_by', params: { query: {}, aggregate: { s: { count_by: 'status' } }, limit: 0 } },
];

async function main(plan: LoadPlan): Promise<LoadAnswer[]> {
  const client = new KeepAliveClient(plan.apiUrl, plan.concurrency + CHEAP.length + 2);
  const answers: LoadAnswer[] = [];
  const deadline = performance.now() + plan.seconds * 1000;
  const call = async (who: 'A' | 'B', kind: string, params: unknown, requestId: string) => {
    const org = who === 'A' ? plan.a : plan.b;
    const body = JSON.stringify({ entity: 'invoices', action: 'search', params });
    const started = performance.now();
    let status = 0;
    try {
      const answer = await client.post(`/api/v1/integrations/connectors/${org.connectorId}/execute`, body, {
        authorization: `Bearer ${org.token}`,
        'x-request-id': requestId,
      });
      status = answer.status;
    } catch {
      status = -1;
    }
    answers.push({ who, kind, status, ms: performance.now() - started });
    return status;
  };
  let sent = 0;
  const flood = async (loop: number) => {
    for (let i = loop; performance.now() < deadline; i += plan.concurrency) {
      const query = COSTLY[i % COSTLY.length]!;
      const status = await call('A', query.kind, query.params, `noisy-a-${sent++}`);
      // An eager client: told to come back, it does after a short pause (our 429s are answered at once).
      if (status === 429) await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };
  const cheap = async (k: number) => {
    const query = CHEAP[k]!;
    for (let i = 0; performance.now() < deadline; i++) await call('B', query.kind, query.params, `noisy-b-${k}-${i}`);
  };
  await Promise.all([
    ...Array.from({ length: plan.concurrency }, (_, loop) => flood(loop)),
    ...CHEAP.map((_, k) => cheap(k)),
  ]);
  client.close();
  return answers;
}

const answers = await main(JSON.parse(process.argv[2] ?? '{}') as LoadPlan);
process.stdout.write(`${JSON.stringify(answers)}\n`);
