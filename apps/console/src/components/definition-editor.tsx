import { EditorView } from 'codemirror';
import { jsonSchema } from 'codemirror-json-schema';
import { useEffect } from 'preact/hooks';
import { useShadowEditor } from './shadow-editor.ts';

/** The editor's own look (inside its shadow root, the page's stylesheet does not reach it). */
const theme = EditorView.theme({
  '&': { minHeight: '24rem', maxHeight: '36rem', fontSize: '13px' },
  '.cm-scroller': { overflow: 'auto', fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace' },
});

/**
 * A CodeMirror 6 editor for a connector definition: JSON with the format's JSON Schema (GET
 * /api/v1/connector-definitions/schema) checked as you type (problems underlined), completion of the keys and values
 * the schema allows, and hover help (codemirror-json-schema). Ctrl/Cmd-Enter validates. In a shadow root (useShadowEditor).
 */
export function DefinitionEditor(props: {
  value: string;
  schema: Record<string, unknown> | null;
  onChange: (text: string) => void;
  onValidate: () => void;
}) {
  const { host, view } = useShadowEditor({
    key: props.schema,
    value: props.value,
    // The format's schema, as the API publishes it; drafts it does not know are read as draft 7.
    extensions: () => [theme, jsonSchema((props.schema ?? {}) as Parameters<typeof jsonSchema>[0])],
    onChange: props.onChange,
    onRun: props.onValidate,
  });

  // A document loaded from outside (a saved version) replaces the text.
  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== props.value) {
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: props.value } });
    }
  }, [props.value]);

  return <div class="definition-editor" ref={host} data-testid="definition-editor" />;
}
