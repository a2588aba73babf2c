/** A job's W3C trace context, carried in its data by the queue that added it (undefined: none). */
export function traceparentOf(data: unknown): string | undefined {
  const value = (data as { traceparent?: unknown } | null)?.traceparent;
  return typeof value === 'string' ? value : undefined;
}

/** The connector a job is about, as a span attribute. */
export function connectorIdOf(data: unknown): string {
  const value = (data as { connectorId?: unknown } | null)?.connectorId;
  return typeof value === 'string' ? value : '';
}
