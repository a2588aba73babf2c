/**
 * Previous and next over cursor pages, for the playgrounds: `pages[i]` is the cursor of page i (null for the first),
 * and a page after the current one is known once its cursor is.
 */
export function Pager(props: {
  state: {
    pages: readonly (string | null)[];
    pageIndex: number;
    busy: boolean;
    run: (cursor: string | null, pageIndex: number) => unknown;
  };
  labels: readonly [previous: string, next: string];
  nextTestId: string;
  /** Drawn as secondary buttons (beside a primary one). */
  secondary?: boolean;
}) {
  const { pages, pageIndex, busy, run } = props.state;
  const { labels } = props;
  const className = props.secondary ? 'secondary' : undefined;
  return (
    <>
      <button
        type="button"
        class={className}
        disabled={busy || pageIndex === 0}
        onClick={() => void run(pages[pageIndex - 1] ?? null, pageIndex - 1)}
      >
        {labels[0]}
      </button>
      <button
        type="button"
        class={className}
        disabled={busy || !pages[pageIndex + 1]}
        onClick={() => void run(pages[pageIndex + 1] ?? null, pageIndex + 1)}
        data-testid={props.nextTestId}
      >
        {labels[1]}
      </button>
    </>
  );
}
