import { keymap } from '@codemirror/view';
import { basicSetup, EditorView } from 'codemirror';
import type { RefObject } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

type Extension = NonNullable<NonNullable<ConstructorParameters<typeof EditorView>[0]>['extensions']>;

/**
 * A CodeMirror 6 view in the host's shadow root: there CodeMirror styles itself with constructed stylesheets, which
 * the console's content security policy (`style-src 'self'`, no inline <style>) allows; in the document it would add
 * <style> tags. Ctrl/Cmd-Enter calls `onRun`; every edit calls `onChange`. The view is built again when `key` changes
 * (a new schema); the text lives in the editor, the callbacks are read through a ref, so they may change freely.
 */
export function useShadowEditor(options: {
  key: unknown;
  value: string;
  extensions: () => Extension;
  onChange: (text: string) => void;
  onRun: () => void;
}): { host: RefObject<HTMLDivElement>; view: RefObject<EditorView | null> } {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const latest = useRef(options);
  latest.current = options;

  useEffect(() => {
    if (!host.current) return;
    const shadow = host.current.shadowRoot ?? host.current.attachShadow({ mode: 'open' });
    const editor = new EditorView({
      doc: latest.current.value,
      root: shadow,
      parent: shadow,
      extensions: [
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
        latest.current.extensions(),
        EditorView.lineWrapping,
        EditorView.updateListener.of((update) => {
          if (update.docChanged) latest.current.onChange(update.state.doc.toString());
        }),
      ],
    });
    view.current = editor;
    return () => editor.destroy();
  }, [options.key]);

  return { host, view };
}
