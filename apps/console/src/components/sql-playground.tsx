import { useMemo, useState } from 'preact/hooks';
import type { SqlResult } from '../api.ts';
import { useApiCall } from './api-call.ts';
import { Picker } from './fields.tsx';
import { useLiveChanges } from './live-changes.ts';
import { Pager } from './pager.tsx';
import { type ConnectorToolProps, useConnectorAndEntity } from './pickers.tsx';
import { ProblemView } from './problem-view.tsx';
import { ResultsTable } from './results-table.tsx';
import { SqlChart } from './sql-chart.tsx';
import { SqlEditor } from './sql-editor.tsx';

const searchable = (entity: { actions: string[] }) => entity.actions.includes('search');

/**
 * SQL over the copy (docs/sql.md): an editor that completes the connector's tables and columns, the rows with
 * cursor paging, and a chart of a grouped answer (bars per category, a line over DATE_TRUNC).
 */
export function SqlPlayground(props: ConnectorToolProps) {
  const picked = useConnectorAndEntity(props, searchable);
  const { connector, entities } = picked;
  const schema = useMemo(
    () => Object.fromEntries(entities.map((e) => [e.name, e.searchable.map((f) => f.path)])),
    [entities],
  );
  const [query, setQuery] = useState(() => `SELECT * FROM ${entities[0]?.name ?? 'invoices'} LIMIT 25`);
  const { busy, problem, setProblem, run: call } = useApiCall();
  const [result, setResult] = useState<SqlResult | null>(null);
  const [pages, setPages] = useState<(string | null)[]>([null]);
  const [pageIndex, setPageIndex] = useState(0);

  /** The query and page the results show: what a change in the copy runs again. */
  const [shown, setShown] = useState<{ query: string; cursor: string | null; index: number } | null>(null);

  const run = (cursor: string | null, index: number, text = query) =>
    call(async () => {
      if (!connector) return;
      const page = await props.api.connector(connector).sql(text, { limit: 100, ...(cursor ? { cursor } : {}) });
      setResult(page);
      setShown({ query: text, cursor, index });
      setPageIndex(index);
      setPages((known) => [...known.slice(0, index + 1), page.meta.has_more ? page.meta.cursor : null]);
    });

  // Live: when the copy changes, the answer on screen is asked again (its chart and rows follow).
  const updatedAt = useLiveChanges(props.api, connector, () => {
    if (shown) void run(shown.cursor, shown.index, shown.query);
  });

  return (
    <section class="card" data-testid="sql">
      <div class="row">
        <Picker
          label="Connector"
          name="sql_connector"
          value={picked.connectorId}
          options={picked.connectors.map((c) => [c.connector_id, `${c.name} (${c.connector_type})`])}
          onChange={picked.setConnectorId}
        />
        <p class="muted">Tables: {entities.map((e) => e.name).join(', ') || '—'}</p>
      </div>
      <SqlEditor value={query} schema={schema} onChange={setQuery} onRun={() => void run(null, 0)} />
      <div class="row">
        <button type="button" onClick={() => void run(null, 0)} disabled={busy || !connector} data-testid="run-sql">
          Run (Ctrl-Enter)
        </button>
        <Pager state={{ pages, pageIndex, busy, run }} labels={['Previous', 'Next']} nextTestId="sql-next-page" />
      </div>
      <ProblemView problem={problem} onDismiss={() => setProblem(null)} />
      {result && (
        <div data-testid="sql-results">
          <p class="muted">
            Page {pageIndex + 1} · {result.data.length} rows · took {String(result.meta.took_ms ?? '—')} ms
            {result.meta.total ? ` · ${result.meta.total.value}${result.meta.total.exact ? '' : '+'} in all` : ''}
            <span class="live" data-testid="sql-live">
              {' · live'}
              {updatedAt ? `, updated ${updatedAt.toLocaleTimeString()}` : ''}
            </span>
          </p>
          <SqlChart page={result} />
          <ResultsTable rows={result.data} />
        </div>
      )}
    </section>
  );
}
