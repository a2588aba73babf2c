type Row = Record<string, unknown>;

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A table's header row: one <th> per column (an empty name is an unlabelled column). */
export function TableHead({ columns }: { columns: readonly string[] }) {
  return (
    <thead>
      <tr>
        {columns.map((c) => (
          <th key={c}>{c}</th>
        ))}
      </tr>
    </thead>
  );
}

/** Rows as a table: the record key first, then every top-level field seen in the rows (objects as JSON). */
export function ResultsTable({ rows, keyField }: { rows: Row[]; keyField?: string | undefined }) {
  if (rows.length === 0) return <p class="muted">No rows.</p>;
  const columns: string[] = [];
  for (const row of rows.slice(0, 200))
    for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  const first = keyField?.split('.')[0];
  if (first && columns.includes(first)) columns.splice(0, 0, ...columns.splice(columns.indexOf(first), 1));
  return (
    <div class="table-wrap">
      <table class="results" data-testid="results-table">
        <TableHead columns={columns} />
        <tbody>
          {rows.map((row, i) => (
            <tr key={first ? cell(row[first]) || i : i}>
              {columns.map((c) => {
                const text = cell(row[c]);
                return (
                  <td key={c} title={text.length > 80 ? text : undefined}>
                    {text.length > 80 ? `${text.slice(0, 80)}…` : text}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
