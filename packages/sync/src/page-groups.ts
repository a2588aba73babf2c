/**
 * The sync run's upstream pages, read ahead and handed out in groups: while one group is written (one bulk request,
 * one checkpoint, one heartbeat), up to `maxAhead` further pages are read; the next group is every page read by
 * then, up to `maxRecords` records (always at least one page). A slow index gets bigger, fewer writes; a slow
 * upstream gets a page at a time, as soon as it arrives. Pages keep their order; a failed read surfaces after the
 * pages before it were handed out, exactly as without reading ahead; stopping early waits for the read in flight,
 * then closes the source.
 */
export async function* pageGroups<Page extends { readonly records: readonly unknown[] }>(
  source: AsyncIterable<Page>,
  options: { readonly maxRecords: number; readonly maxAhead: number },
): AsyncGenerator<Page[], void, undefined> {
  const iterator = source[Symbol.asyncIterator]();
  const ready: Page[] = [];
  let failure: { error: unknown } | undefined;
  let exhausted = false;
  let stopped = false;
  let reading: Promise<void> | undefined;
  let arrived: (() => void) | undefined;

  const canRead = () => !exhausted && !failure && !stopped && ready.length < options.maxAhead;
  const read = async () => {
    do {
      try {
        const result = await iterator.next();
        if (result.done) exhausted = true;
        else ready.push(result.value);
      } catch (error) {
        failure = { error };
      }
      arrived?.();
    } while (canRead());
    reading = undefined;
  };
  // Only started when there is something to read: read() always awaits once before it clears `reading`.
  const keepReading = () => {
    if (!reading && canRead()) reading = read();
  };

  try {
    for (;;) {
      keepReading();
      while (ready.length === 0 && !exhausted && !failure) {
        await new Promise<void>((resolve) => {
          arrived = resolve;
        });
        arrived = undefined;
        keepReading();
      }
      if (ready.length === 0) {
        if (failure) throw failure.error;
        return;
      }
      const group: Page[] = [];
      let records = 0;
      while (ready.length > 0 && (group.length === 0 || records + ready[0]!.records.length <= options.maxRecords)) {
        const page = ready.shift()!;
        group.push(page);
        records += page.records.length;
      }
      keepReading();
      yield group;
    }
  } finally {
    stopped = true;
    await reading;
    if (!exhausted && !failure) await iterator.return?.();
  }
}
