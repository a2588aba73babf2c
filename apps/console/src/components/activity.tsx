import { useEffect, useState } from 'preact/hooks';
import { type Api, type AuditEntry, asProblem, type ConnectorView, type Problem } from '../api.ts';
import { ProblemView } from './problem-view.tsx';
import { TableHead } from './results-table.tsx';

const PAGE = 100;
const STATUSES = [
  ['', 'any status'],
  ['success', 'success'],
  ['error', 'error'],
  ['4xx', '4xx'],
  ['5xx', '5xx'],
] as const;

/** Latency of the entries shown, oldest to newest, as a line: what got slow, and when. */
function LatencyChart({ entries }: { entries: readonly AuditEntry[] }) {
  // Calls without an outcome (their process ended before answering) have no latency to draw.
  const points = entries.filter((e): e is AuditEntry & { latency_ms: number } => e.latency_ms !== null).reverse();
  if (points.length < 2) return null;
  const width = 720;
  const height = 140;
  const times = points.map((e) => Date.parse(e.at));
  const [t0, t1] = [Math.min(...times), Math.max(...times)];
  const max = Math.max(...points.map((e) => e.latency_ms), 1);
  const x = (t: number) => (t1 === t0 ? width / 2 : ((t - t0) / (t1 - t0)) * (width - 40) + 30);
  const y = (ms: number) => height - 20 - (ms / max) * (height - 30);
  const path = points.map((e, i) => `${i === 0 ? 'M' : 'L'}${x(times[i]!).toFixed(1)},${y(e.latency_ms).toFixed(1)}`);
  return (
    <figure class="latency-chart" data-testid="latency-chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label="latency over time">
        <line x1="30" y1={height - 20} x2={width - 10} y2={height - 20} stroke="currentColor" opacity="0.3" />
        <text x="0" y="12" font-size="10">{`${Math.round(max)} ms`}</text>
        <text x="0" y={height - 22} font-size="10">
          0
        </text>
        <path d={path.join(' ')} fill="none" stroke="currentColor" stroke-width="1.5" />
        {points.map((e, i) => (
          <circle
            key={e.id}
            cx={x(times[i]!)}
            cy={y(e.latency_ms)}
            r="2.5"
            class={(e.status ?? 0) >= 400 ? 'point-error' : 'point-ok'}
          >
            <title>{`${e.action} ${e.status} ${e.latency_ms.toFixed(1)} ms at ${e.at}`}</title>
          </circle>
        ))}
      </svg>
      <figcaption class="muted">
        Latency of these {points.length} calls, {new Date(t0).toLocaleTimeString()} to{' '}
        {new Date(t1).toLocaleTimeString()}
      </figcaption>
    </figure>
  );
}

/** The audit trail: who called what, when, with which result; filtered by connector, action and status. */
export function Activity(props: { api: Api; connectors: readonly ConnectorView[] }) {
  const [connectorId, setConnectorId] = useState('');
  const [action, setAction] = useState('');
  const [status, setStatus] = useState('');
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);

  const load = async (from: string | null) => {
    try {
      const page = await props.api.conduit.audit({
        connector_id: connectorId,
        action,
        status,
        limit: PAGE,
        ...(from ? { cursor: from } : {}),
      });
      setEntries((current) => (from && current ? [...current, ...page.data] : page.data));
      setCursor(page.meta.cursor);
      setProblem(null);
    } catch (error) {
      setProblem(asProblem(error));
    }
  };

  useEffect(() => {
    void load(null);
  }, [connectorId, action, status]);

  return (
    <section data-testid="activity">
      <h2>Activity</h2>
      <form class="filters" onSubmit={(event) => event.preventDefault()}>
        <select
          name="connector_id"
          value={connectorId}
          onChange={(e) => setConnectorId((e.target as HTMLSelectElement).value)}
        >
          <option value="">all connectors</option>
          {props.connectors.map((c) => (
            <option key={c.connector_id} value={c.connector_id}>
              {c.name} ({c.connector_type})
            </option>
          ))}
        </select>
        <input
          name="action"
          placeholder="action (e.g. execute, connector.update)"
          value={action}
          onChange={(e) => setAction((e.target as HTMLInputElement).value.trim())}
        />
        <select name="status" value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}>
          {STATUSES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </form>
      <ProblemView problem={problem} onDismiss={() => setProblem(null)} />
      {entries && <LatencyChart entries={entries} />}
      {entries && entries.length === 0 && <p class="muted">No calls match.</p>}
      {entries && entries.length > 0 && (
        <div class="table-wrap">
          <table class="results" data-testid="activity-table">
            <TableHead
              columns={[
                'time',
                'action',
                'entity',
                'connector',
                'client',
                'status',
                'upstream',
                'latency ms',
                'source',
              ]}
            />
            <tbody>
              {entries.map((e) => (
                <tr key={e.id} title={JSON.stringify(e.params)}>
                  <td>{new Date(e.at).toLocaleString()}</td>
                  <td>{e.action}</td>
                  <td>{e.entity ?? ''}</td>
                  <td>{e.connector_id ?? ''}</td>
                  <td>{e.client_id ?? ''}</td>
                  <td class={e.status === null || e.status >= 400 ? 'error' : ''}>
                    {e.status ?? 'no outcome'}
                    {e.error_code ? ` ${e.error_code}` : ''}
                  </td>
                  <td>{e.upstream_status ?? ''}</td>
                  <td>{e.latency_ms?.toFixed(1) ?? ''}</td>
                  <td>{e.source}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {cursor && (
        <button type="button" onClick={() => void load(cursor)}>
          Older calls
        </button>
      )}
    </section>
  );
}
