import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api.ts';

type DefinitionsTool = (props: { api: Api }) => preact.JSX.Element;

/** The Definitions tab, loaded when first opened: its JSON Schema editor is most of its weight. */
export function DefinitionsPage(props: { api: Api }) {
  const [Page, setPage] = useState<DefinitionsTool | null>(null);
  useEffect(() => {
    if (!Page) void import('./definitions.tsx').then((m) => setPage(() => m.Definitions));
  }, [Page]);
  return Page ? <Page {...props} /> : <p class="muted">Loading…</p>;
}
