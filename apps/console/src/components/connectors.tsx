import { useEffect, useRef, useState } from 'preact/hooks';
import { type Api, asProblem, type ConnectorView, type EntityStatus, type Problem } from '../api.ts';
import { useLiveChanges } from './live-changes.ts';
import { ProblemView } from './problem-view.tsx';
import { RecentChanges } from './recent-changes.tsx';
import { TableHead } from './results-table.tsx';

const FAST_REFRESH_MS = 1500;
const SLOW_REFRESH_MS = 15_000;

function busy(entity: EntityStatus): boolean {
  return entity.running || entity.status === 'pending' || entity.status === 'initial_sync';
}

function lastSync(connector: ConnectorView): string | null {
  const times = Object.values(connector.entities)
    .map((e) => e.last_success_at)
    .filter((t): t is string => t !== null)
    .sort();
  return times.at(-1) ?? null;
}

function when(iso: string | null): string {
  if (!iso) return '—';
  const seconds = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (seconds < 60) return `${Math.max(seconds, 0)}s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  return new Date(iso).toLocaleString();
}

export function StatusBadge({ entity }: { entity: EntityStatus }) {
  return (
    <span class={`badge status-${entity.status}${entity.running ? ' running' : ''}`} data-status={entity.status}>
      {entity.status}
      {entity.running ? ' · running' : ''}
    </span>
  );
}

/** Every connector of the organization, refreshed quickly while a sync runs and slowly otherwise. */
export function Connectors(props: { api: Api; selected: string | null; onSelect: (id: string | null) => void }) {
  const [connectors, setConnectors] = useState<ConnectorView[] | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    let cancelled = false;
    const load = async () => {
      let next = SLOW_REFRESH_MS;
      try {
        const list = await props.api.conduit.connectors.list();
        if (cancelled) return;
        setConnectors(list);
        setProblem(null);
        if (list.some((c) => Object.values(c.entities).some(busy))) next = FAST_REFRESH_MS;
      } catch (error) {
        if (!cancelled) setProblem(asProblem(error));
      }
      if (!cancelled) timer.current = setTimeout(load, next);
    };
    void load();
    return () => {
      cancelled = true;
      if (timer.current) clearTimeout(timer.current);
    };
  }, [props.api, tick]);

  const refresh = () => setTick((t) => t + 1);
  // The selected connector's counts follow its copy as it changes (the change stream), not only the polling above.
  const selected = connectors?.find((c) => c.connector_id === props.selected) ?? null;
  useLiveChanges(props.api, selected, refresh);

  const sync = async (connector: ConnectorView, mode: 'incremental' | 'full', entity?: string) => {
    setProblem(null);
    try {
      await props.api.conduit.connectors.sync(connector.connector_id, {
        ...(entity ? { entity } : {}),
        ...(mode === 'full' ? { mode } : {}),
      });
      setNotice(
        `${mode === 'full' ? 'Full' : 'Incremental'} sync queued for ${connector.name}${entity ? ` / ${entity}` : ''}`,
      );
      refresh();
    } catch (error) {
      setProblem(asProblem(error));
    }
  };

  const remove = async (connector: ConnectorView) => {
    if (!window.confirm(`Delete ${connector.name} and its indexed records?`)) return;
    try {
      await props.api.conduit.connectors.delete(connector.connector_id);
      if (props.selected === connector.connector_id) props.onSelect(null);
      refresh();
    } catch (error) {
      setProblem(asProblem(error));
    }
  };

  if (connectors === null) return problem ? <ProblemView problem={problem} /> : <p class="muted">Loading…</p>;
  return (
    <section class="card">
      <div class="card-head">
        <h2>Connectors</h2>
        <button type="button" class="secondary" onClick={refresh}>
          Refresh
        </button>
      </div>
      {notice && (
        <p class="notice" data-testid="notice">
          {notice}
        </p>
      )}
      <ProblemView problem={problem} onDismiss={() => setProblem(null)} />
      {connectors.length === 0 ? (
        <p class="muted">No connectors yet: create one.</p>
      ) : (
        <table class="connectors" data-testid="connectors">
          <TableHead columns={['Kind', 'Name', 'Customer', 'Entities', 'Records', 'Last sync', 'Errors', 'Webhooks']} />
          <tbody>
            {connectors.map((c) => {
              const entities = Object.values(c.entities);
              const ready = entities.filter((e) => e.status === 'ready').length;
              const errors = entities.filter((e) => e.error).length;
              const running = entities.some(busy);
              return (
                <tr
                  key={c.connector_id}
                  class={props.selected === c.connector_id ? 'selected' : ''}
                  onClick={() => props.onSelect(props.selected === c.connector_id ? null : c.connector_id)}
                  data-connector-id={c.connector_id}
                >
                  <td>{c.connector_type}</td>
                  <td>{c.name}</td>
                  <td>{c.customer_name}</td>
                  <td>
                    {ready}/{entities.length} ready{running ? ' · syncing' : ''}
                  </td>
                  <td class="num">{entities.reduce((n, e) => n + e.record_count, 0).toLocaleString()}</td>
                  <td>{when(lastSync(c))}</td>
                  <td class={errors ? 'error-text' : ''}>{errors || '—'}</td>
                  <td>{c.webhooks}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {connectors
        .filter((c) => c.connector_id === props.selected)
        .map((c) => (
          <ConnectorDetail key={c.connector_id} api={props.api} connector={c} onSync={sync} onDelete={remove} />
        ))}
    </section>
  );
}

function ConnectorDetail(props: {
  api: Api;
  connector: ConnectorView;
  onSync: (c: ConnectorView, mode: 'incremental' | 'full', entity?: string) => void;
  onDelete: (c: ConnectorView) => void;
}) {
  const c = props.connector;
  return (
    <div class="detail" data-testid="connector-detail">
      <div class="card-head">
        <h3>
          {c.name} <span class="muted">{c.connector_id}</span>
        </h3>
        <div class="actions">
          <button type="button" onClick={() => props.onSync(c, 'incremental')} data-testid="sync-incremental">
            Sync now
          </button>
          <button type="button" class="secondary" onClick={() => props.onSync(c, 'full')} data-testid="sync-full">
            Full sync
          </button>
          <button type="button" class="danger" onClick={() => props.onDelete(c)}>
            Delete
          </button>
        </div>
      </div>
      <table class="entities" data-testid="entities">
        <TableHead columns={['Entity', 'Status', 'Records', 'Last sync', 'Error', '']} />
        <tbody>
          {Object.entries(c.entities).map(([name, e]) => (
            <tr key={name} data-entity={name}>
              <td>{name}</td>
              <td>
                <StatusBadge entity={e} />
              </td>
              <td class="num">{e.record_count.toLocaleString()}</td>
              <td>{when(e.last_success_at)}</td>
              <td class="error-text">{e.error ?? ''}</td>
              <td>
                <button type="button" class="link" onClick={() => props.onSync(c, 'incremental', name)}>
                  sync
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <RecentChanges api={props.api} connector={c} lastSync={lastSync(c)} />
      <details>
        <summary>configuration</summary>
        <pre>{JSON.stringify({ config: c.config, replication_config: c.replication_config }, null, 2)}</pre>
      </details>
    </div>
  );
}
