import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api, ConnectorView } from '../api.ts';

/**
 * How long after a change the page asks again. The stream announces a change once the copy applied it; the engine
 * makes it searchable at its next refresh, every second (docs/changes.md), so asking sooner can answer as before.
 * Changes that land meanwhile (a sync page applies hundreds in a burst) are answered by the same one question.
 */
const SETTLE_MS = 1200;

/**
 * Calls `onChange` with the entities that changed whenever the connector's copy changes, pushed by the API's change
 * stream (GET .../changes/stream, through the client's `follow()`), for as long as the page shows the connector.
 * Answers when the stream last brought something (null before), for the page to say how fresh it is.
 */
export function useLiveChanges(
  api: Api,
  connector: ConnectorView | null | undefined,
  onChange: (entities: ReadonlySet<string>) => void,
): Date | null {
  const latest = useRef(onChange);
  latest.current = onChange;
  const [updatedAt, setUpdatedAt] = useState<Date | null>(null);
  const id = connector?.connector_id;

  useEffect(() => {
    if (!connector) return;
    const stop = new AbortController();
    let pending = new Set<string>();
    let timer: ReturnType<typeof setTimeout> | null = null;
    void (async () => {
      try {
        for await (const change of api.connector(connector).follow({ after: 'latest', signal: stop.signal })) {
          pending.add(change.entity);
          timer ??= setTimeout(() => {
            const entities = pending;
            pending = new Set();
            timer = null;
            setUpdatedAt(new Date());
            latest.current(entities);
          }, SETTLE_MS);
        }
      } catch {
        // The stream reconnects by itself; what ends it here (a 404 after a delete, sign-out) ends the live view.
      }
    })();
    return () => {
      stop.abort();
      if (timer) clearTimeout(timer);
    };
  }, [api, id]);

  return updatedAt;
}
