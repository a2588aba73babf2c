import { useEffect, useState } from 'preact/hooks';
import { type Api, asProblem, type Problem, type Usage } from '../api.ts';
import { ProblemView } from './problem-view.tsx';
import { SqlChart } from './sql-chart.tsx';

/** The metrics the chart stacks per bucket: the organization's calls of the API by class. */
const CALLS = ['api_search', 'api_execute', 'api_sql', 'api_changes', 'api_other'] as const;
const OTHERS = ['upstream_requests', 'records_synced', 'webhook_deliveries'] as const;

/**
 * The Usage tab: the organization's calls per day or hour (a chart, as the SQL tab draws a grouped answer), its
 * other counters, and each quota with what is used (docs/operations.md, "Usage and quotas").
 */
export function UsagePage({ api }: { api: Api }) {
  const [granularity, setGranularity] = useState<'day' | 'hour'>('day');
  const [usage, setUsage] = useState<Usage | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  useEffect(() => {
    api.conduit.usage({ granularity }).then(setUsage, (error) => setProblem(asProblem(error)));
  }, [granularity]);
  const total = (metric: string) =>
    usage?.data.reduce((sum, bucket) => sum + ((bucket.metrics as Record<string, number>)[metric] ?? 0), 0) ?? 0;
  // The chart's input is a grouped SQL-like page: the bucket's start, then one numeric column per metric.
  const page = usage && {
    data: usage.data.map((b) => ({ start: b.start, ...b.metrics })),
    meta: {
      columns: [{ name: 'start', type: 'datetime' }, ...CALLS.map((name) => ({ name, type: 'integer' }))],
      has_more: false,
      cursor: null,
    },
  };
  return (
    <section data-testid="usage">
      <h2>Usage</h2>
      <ProblemView problem={problem} onDismiss={() => setProblem(null)} />
      <label>
        By{' '}
        <select
          data-testid="usage-granularity"
          value={granularity}
          onChange={(e) => setGranularity((e.target as HTMLSelectElement).value as 'day' | 'hour')}
        >
          <option value="day">day (30 days)</option>
          <option value="hour">hour (24 hours)</option>
        </select>
      </label>
      {page && <SqlChart page={page as unknown as Parameters<typeof SqlChart>[0]['page']} />}
      {usage && (
        <>
          <table data-testid="usage-totals">
            <thead>
              <tr>
                <th>metric</th>
                <th>total</th>
              </tr>
            </thead>
            <tbody>
              {[...CALLS, ...OTHERS].map((metric) => (
                <tr key={metric} data-metric={metric}>
                  <td>{metric}</td>
                  <td>{total(metric)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h3>Quotas</h3>
          <table data-testid="usage-quotas">
            <thead>
              <tr>
                <th>quota</th>
                <th>used</th>
                <th>limit</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(usage.meta.quotas).map(([name, quota]) => (
                <tr key={name} data-quota={name}>
                  <td>{name}</td>
                  <td>{quota.used}</td>
                  <td>{quota.limit ?? 'none'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
