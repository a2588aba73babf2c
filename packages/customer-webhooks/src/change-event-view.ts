import type { ChangeEventRow } from '@conduit/db';

export interface ChangeEventView {
  readonly id: string;
  readonly type: ChangeEventRow['type'];
  readonly entity: string;
  readonly key: string;
  readonly record?: Record<string, unknown>;
  readonly changed_at: string;
  readonly source: 'sync' | 'full_pass' | 'webhook' | 'execute';
}

/** The event id: the connector and the event's number in its feed; the webhook-id of every delivery of it. */
export function changeEventId(connectorId: string, seq: number): string {
  return `${connectorId}.${seq}`;
}

/** A change event as the API answers it and as a delivery carries it (docs/changes.md). */
export function changeEventView(connectorId: string, event: ChangeEventRow): ChangeEventView {
  return {
    id: changeEventId(connectorId, event.seq),
    type: event.type,
    entity: event.entity,
    key: event.key,
    ...(event.record === null ? {} : { record: event.record }),
    changed_at: event.changed_at.toISOString(),
    source: event.source as ChangeEventView['source'],
  };
}
