import { parseOrThrow } from '@conduit/connectors';
import { changeEventView } from '@conduit/customer-webhooks';
import type { ChangeEventRow } from '@conduit/db';
import { redactForAudit } from '@conduit/trusted-calls';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import type { ApiDeps } from '../../deps.ts';
import { auditAs } from '../../middleware/audit-trail.ts';
import { ConnectorIdParams } from '../../openapi/connector-bodies.ts';
import { authenticatedRoute, defineRoutes } from '../../openapi/route-kit.ts';
import { ApiError } from '../../problem.ts';
import { searchableEntities } from '../../services/connector-view.ts';
import { ChangesQuery } from './changes.ts';
import { FeedTails } from './feed-tails.ts';
import { loadConnector } from './load.ts';

/** How often the streams of a connector look at the feed's head (one primary-key read) while nothing is new. */
const POLL_MS = 500;
/** A comment line this often keeps proxies from closing an idle stream (docs/changes.md). */
const HEARTBEAT_MS = 15_000;
/** Events read from the feed at a time. */
const BATCH = 200;

const StreamQuery = ChangesQuery.pick({ after: true, entity: true });

export const changesStreamRoute = authenticatedRoute({
  tags: ['Changes'],
  method: 'get',
  path: '/{connector_id}/changes/stream',
  summary: 'The change feed as Server-Sent Events, live: each event’s `id` is its cursor (resume with Last-Event-ID)',
  request: { params: ConnectorIdParams, query: StreamQuery },
  responses: {
    200: {
      description:
        'text/event-stream: `event: change` with a ChangeEvent as `data` and its cursor as `id`; a comment every 15 s',
      content: { 'text/event-stream': { schema: z.string() } },
    },
  },
  problems: [400, 404, 410],
});

/**
 * GET /api/v1/integrations/connectors/{id}/changes/stream: the same events as GET .../changes, pushed as the copy
 * applies them. A reconnecting client sends Last-Event-ID (browsers' EventSource does) and resumes right after it;
 * `after=latest` starts with what comes next. Runs until the caller leaves.
 */
export const changesStreamRoutes = defineRoutes(
  { changesStream: changesStreamRoute },
  (deps: Pick<ApiDeps, 'connectors' | 'changeFeed' | 'hosted'>) => {
    const tails = new FeedTails({ feed: deps.changeFeed, format: changeMessage, pollMs: POLL_MS });
    return {
      changesStream: async (c) => {
        const { row, catalog } = await loadConnector(c, deps);
        auditAs(c, {
          action: 'connector.changes_stream',
          connectorId: row.id,
          entity: c.req.query('entity'),
          params: redactForAudit(c.req.query()),
        });
        const query = parseOrThrow(StreamQuery, c.req.query(), '', 'invalid_request', 'invalid query');
        if (query.entity !== undefined && !searchableEntities(catalog).includes(query.entity)) {
          throw new ApiError(400, 'invalid_request', `${row.connector_type} replicates no entity ${query.entity}`, {
            errors: [{ path: '/entity', message: `one of ${searchableEntities(catalog).join(', ')}` }],
          });
        }
        const lastEventId = c.req.header('last-event-id');
        if (lastEventId !== undefined && !/^\d{1,18}$/.test(lastEventId)) {
          throw new ApiError(400, 'invalid_request', 'invalid Last-Event-ID', {
            errors: [{ path: '/headers/last-event-id', message: 'the id of an event this stream sent' }],
          });
        }
        const head = await deps.changeFeed.head(row.id);
        const start = lastEventId ?? query.after;
        let after = start === 'latest' ? head.lastSeq : start === undefined ? head.purgedThrough : Number(start);
        if (after < head.purgedThrough) {
          throw new ApiError(
            410,
            'cursor_expired',
            'the events after this cursor are past the retention (CHANGES_RETENTION); start again from a search',
          );
        }
        const signal = c.req.raw.signal;
        return streamSSE(c, async (stream) => {
          let lastWrite = Date.now();
          while (!signal.aborted && !stream.aborted) {
            const waitMs = Math.max(0, HEARTBEAT_MS - (Date.now() - lastWrite));
            const batch = await tails.next(row.id, after, query.entity, waitMs, signal);
            if (batch) {
              // One write for the whole batch: each write is a chunk the server sends on its own.
              if (batch.events.length > 0) {
                await stream.write(Buffer.concat(batch.events.map((event) => event.message)));
                lastWrite = Date.now();
              }
              after = batch.through;
            } else {
              // Behind the events the tail keeps (a resumed stream): read from the feed until caught up.
              const { lastSeq } = await deps.changeFeed.head(row.id);
              const events = await deps.changeFeed.read(row.id, { after, limit: BATCH, entity: query.entity });
              if (events.length > 0) {
                await stream.write(events.map((event) => changeMessage(row.id, event)).join(''));
                after = events.at(-1)!.seq;
                lastWrite = Date.now();
              }
              // Every event up to the head read before was in this read (appends commit in order), those of other
              // entities too: past them.
              if (events.length < BATCH) after = Math.max(after, lastSeq);
            }
            if (Date.now() - lastWrite >= HEARTBEAT_MS) {
              await stream.write(': heartbeat\n\n');
              lastWrite = Date.now();
            }
          }
        });
      },
    };
  },
);

/**
 * One event as an SSE message, as `writeSSE` writes it (https://html.spec.whatwg.org/multipage/server-sent-events.html):
 * its JSON is one line (JSON.stringify escapes every line break), its id the event's cursor.
 */
function changeMessage(connectorId: string, event: ChangeEventRow): string {
  return `event: change\ndata: ${JSON.stringify(changeEventView(connectorId, event))}\nid: ${event.seq}\n\n`;
}
