import { PostgreSQL, type SQLNamespace, sql } from '@codemirror/lang-sql';
import { keymap } from '@codemirror/view';
import { basicSetup, EditorView } from 'codemirror';
import { useEffect, useRef } from 'preact/hooks';

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
 * (@codemirror/lang-sql); Ctrl/Cmd-Enter runs. Built again when the schema changes (another connector).
 * It lives in a shadow root: there CodeMirror styles itself with constructed stylesheets, which the console's
 * content security policy (`style-src 'self'`, no inline <style>) allows; in the document it would add <style> tags.
 */
export function SqlEditor(props: {
  value: string;
  schema: SqlSchema;
  onChange: (text: string) => void;
  onRun: () => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const latest = useRef(props);
  latest.current = props;
  const schemaKey = JSON.stringify(props.schema);

  // Rebuilt for a new schema only: the text lives in the editor, the callbacks are read through `latest`.
  useEffect(() => {
    if (!host.current) return;
    const shadow = host.current.shadowRoot ?? host.current.attachShadow({ mode: 'open' });
    const view = new EditorView({
      doc: latest.current.value,
      root: shadow,
      parent: shadow,
      extensions: [
        theme,
        keymap.of([
          {
            key: 'Mod-Enter',
            run: () => {
              latest.current.onRun();
              return true;
            },
          },
        ]),
        basicSetup,
        sql({ dialect: PostgreSQL, schema: completions(latest.current.schema), upperCaseKeywords: true }),
        EditorView.lineWrapping,
        EditorView.updateListener.of((update) => {
          if (update.docChanged) latest.current.onChange(update.state.doc.toString());
        }),
      ],
    });
    return () => view.destroy();
  }, [schemaKey]);

  return <div class="sql-editor" ref={host} data-testid="sql-editor" />;
}
