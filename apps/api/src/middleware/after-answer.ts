/** What the answers written since the last turn of the event loop left to record, in order. */
let pending: (() => void)[] = [];

function recordPending(): void {
  const records = pending;
  pending = [];
  for (const record of records) record();
}

/**
 * Runs `record` once the answer is on its way. The server writes a response when the middleware chain returns,
 * so a log line or a metric recorded inside the chain delays every answer by its cost. From here it runs right
 * after the write, before the event loop next waits for I/O or runs a timer. The records of a turn share one
 * setImmediate (each request leaves two: its metric and its log line).
 */
export function afterAnswer(record: () => void): void {
  if (pending.push(record) === 1) setImmediate(recordPending);
}
