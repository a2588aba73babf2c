import { useEffect, useState } from 'preact/hooks';
import { type Api, asProblem, type ChangeEvent, type ConnectorView, type Problem } from '../api.ts';
import { ProblemView } from './problem-view.tsx';
import { TableHead } from './results-table.tsx';

const SHOWN = 20;

/**
 * The connector's last changes (its change feed, docs/changes.md), newest first. Feed cursors number a connector's
 * events one by one, so the last SHOWN start SHOWN before the newest cursor. Read again when a sync ends.
 */
export function RecentChanges(props: { api: Api; connector: ConnectorView; lastSync: string | null }) {
  const [events, setEvents] = useState<ChangeEvent[] | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    let cancelled = false;
    (async () => {
      const feed = props.api.connector(props.connector);
      const head = await feed.changesPage({ after: 'latest' });
      const from = Math.max(Number(head.meta.cursor) - SHOWN, 0);
      const page = await feed
        .changesPage({ after: String(from), limit: SHOWN })
        // Older than the retention: the oldest retained instead.
        .catch(() => feed.changesPage({ limit: SHOWN }));
      if (!cancelled) setEvents([...page.data].reverse());
    })().catch((error) => !cancelled && setProblem(asProblem(error)));
    return () => {
      cancelled = true;
    };
  }, [props.connector.connector_id, props.lastSync, tick]);

  return (
    <section class="recent-changes" data-testid="recent-changes">
      <div class="card-head">
        <h4>Recent changes</h4>
        <button type="button" class="link" onClick={() => setTick(tick + 1)} data-testid="refresh-changes">
          refresh
        </button>
      </div>
      <ProblemView problem={problem} onDismiss={() => setProblem(null)} />
      {events === null ? (
        <p class="muted">Loading…</p>
      ) : events.length === 0 ? (
        <p class="muted">No changes yet.</p>
      ) : (
        <table class="changes">
          <TableHead columns={['When', 'Change', 'Entity', 'Key', 'Source']} />
          <tbody>
            {events.map((e) => (
              <tr key={e.id} data-change={e.type}>
                <td>{new Date(e.changed_at).toLocaleString()}</td>
                <td>{e.type.replace('record.', '')}</td>
                <td>{e.entity}</td>
                <td>{e.key}</td>
                <td>{e.source}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
