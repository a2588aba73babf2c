import { useEffect, useState } from 'preact/hooks';
import type { ConnectorToolProps } from './pickers.tsx';
import { SearchPlayground } from './search-playground.tsx';

type SqlTool = (props: ConnectorToolProps) => preact.JSX.Element;

/**
 * The search page: the filter builder, or SQL over the same copy. The SQL tab (its editor and charts are most of
 * the console's weight) is loaded when first opened.
 */
export function SearchPage(props: ConnectorToolProps) {
  const [mode, setMode] = useState<'builder' | 'sql'>('builder');
  const [Sql, setSql] = useState<SqlTool | null>(null);
  useEffect(() => {
    if (mode === 'sql' && !Sql) void import('./sql-playground.tsx').then((m) => setSql(() => m.SqlPlayground));
  }, [mode, Sql]);
  return (
    <>
      <nav class="subtabs" data-testid="search-modes">
        <button type="button" class={mode === 'builder' ? 'active' : ''} onClick={() => setMode('builder')}>
          Filter builder
        </button>
        <button
          type="button"
          class={mode === 'sql' ? 'active' : ''}
          onClick={() => setMode('sql')}
          data-testid="sql-tab"
        >
          SQL
        </button>
      </nav>
      {mode === 'builder' ? <SearchPlayground {...props} /> : Sql ? <Sql {...props} /> : <p class="muted">Loading…</p>}
    </>
  );
}
