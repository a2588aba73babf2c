/**
 * Runs `record` once the answer is on its way. The server writes a response when the middleware chain returns,
 * so a log line or a metric recorded inside the chain delays every answer by its cost. From here it runs right
 * after the write, before the event loop next waits for I/O or runs a timer.
 */
export function afterAnswer(record: () => void): void {
  setImmediate(record);
}
