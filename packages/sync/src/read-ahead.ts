/**
 * The same items in the same order, but the next one is requested as soon as the current one is handed out:
 * the sync run's upstream read of page k+1 overlaps its indexing and checkpoint of page k, so a run costs
 * max(read, write) per page instead of read + write. At most one item is held ahead. A failure of the read
 * ahead surfaces when that item is reached, exactly as without read-ahead; stopping early waits for the read
 * in flight, then closes the source.
 */
export async function* readAhead<T>(source: AsyncIterable<T>): AsyncGenerator<T, void, undefined> {
  const iterator = source[Symbol.asyncIterator]();
  let pending = iterator.next();
  let finished = false;
  try {
    for (;;) {
      const result = await pending;
      if (result.done) {
        finished = true;
        return;
      }
      pending = iterator.next();
      // Observed on the next turn (or by the finally below); not an unhandled rejection meanwhile.
      pending.catch(() => undefined);
      yield result.value;
    }
  } finally {
    if (!finished) {
      await pending.catch(() => undefined);
      await iterator.return?.();
    }
  }
}
