import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api, ConnectorView } from '../api.ts';

/**
 * How long after a change the page asks again. The stream announces a change once it is in the feed, and an answer
 * then reflects every change in the feed when it was asked (its `meta.as_of`, docs/api.md), so the wait only
 * gathers a burst (a sync page applies hundreds of changes): they are answered by the same one question. The panel
 * asks with its last answer's ETag (the client does), so a change that leaves its answer as it was costs a 304.
 */
const SETTLE_MS = 250;
/**
 * While changes keep coming (a webhook a second, a sync), the page asks again at most this often: every open page
 * asks all of its panels each time, so asking after every burst would offer the API far more questions than the
 * changes can alter, and a change is still on screen within about a second.
 */
const MIN_INTERVAL_MS = 1000;

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
    let askedAt = Number.NEGATIVE_INFINITY;
    void (async () => {
      try {
        for await (const change of api.connector(connector).follow({ after: 'latest', signal: stop.signal })) {
          pending.add(change.entity);
          timer ??= setTimeout(
            () => {
              const entities = pending;
              pending = new Set();
              timer = null;
              askedAt = Date.now();
              setUpdatedAt(new Date());
              latest.current(entities);
            },
            Math.max(SETTLE_MS, askedAt + MIN_INTERVAL_MS - Date.now()),
          );
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
