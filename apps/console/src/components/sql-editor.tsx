import { PostgreSQL, type SQLNamespace, sql } from '@codemirror/lang-sql';
import { EditorView } from 'codemirror';
import { useShadowEditor } from './shadow-editor.ts';

/** Tables and their columns, for completion: dotted columns are inserted double-quoted (`"billing_address.city"`). */
export type SqlSchema = Record<string, readonly string[]>;

function completions(schema: SqlSchema): SQLNamespace {
  return Object.fromEntries(
    Object.entries(schema).map(([table, columns]) => [
      table,
      columns.map((c) =>
        c.includes('.') ? { label: c, apply: `"${c}"`, type: 'property' } : { label: c, type: 'property' },
      ),
    ]),
  );
}

/** The editor's own look (inside its shadow root, the page's stylesheet does not reach it). */
const theme = EditorView.theme({
  '&': { minHeight: '8rem', fontSize: '14px' },
  '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace' },
});

/**
 * A CodeMirror 6 editor with SQL highlighting and completion of the connector's tables and columns
 * (@codemirror/lang-sql); Ctrl/Cmd-Enter runs. Built again when the schema changes (another connector), in a
 * shadow root (useShadowEditor).
 */
export function SqlEditor(props: {
  value: string;
  schema: SqlSchema;
  onChange: (text: string) => void;
  onRun: () => void;
}) {
  // Rebuilt for a new schema only (another connector).
  const { host } = useShadowEditor({
    key: JSON.stringify(props.schema),
    value: props.value,
    extensions: () => [theme, sql({ dialect: PostgreSQL, schema: completions(props.schema), upperCaseKeywords: true })],
    onChange: props.onChange,
    onRun: props.onRun,
  });

  return <div class="sql-editor" ref={host} data-testid="sql-editor" />;
}
