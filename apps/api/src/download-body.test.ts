import { describe, expect, it, vi } from 'vitest';
import { collectingAsItStreams, YOUNG_COLLECTION_EVERY_BYTES } from './download-body.ts';

const MIB = 1024 * 1024;

function source(chunks: readonly Uint8Array[], onCancel: () => void = () => undefined): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[next++];
      if (chunk) controller.enqueue(chunk);
      else controller.close();
    },
    cancel: onCancel,
  });
}

async function readAll(body: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return chunks;
}

describe('collectingAsItStreams', () => {
  it('passes every chunk on unchanged and in order, collecting once per 16 MiB streamed', async () => {
    // 40 chunks of 1 MiB: 2 collections (after the 16th and the 32nd).
    const chunks = Array.from({ length: 40 }, () => new Uint8Array(MIB));
    let collections = 0;
    const passed = await readAll(collectingAsItStreams(source(chunks), () => collections++));
    // The very chunks (compared by identity: an element-wise compare of 40 MiB outlasts the test's timeout).
    expect(passed).toHaveLength(chunks.length);
    expect(passed.every((chunk, i) => chunk === chunks[i])).toBe(true);
    expect(YOUNG_COLLECTION_EVERY_BYTES).toBe(16 * MIB);
    expect(collections).toBe(2);
  });

  it('counts bytes, not chunks: many small chunks add up to one collection', async () => {
    const chunks = Array.from({ length: 17 * 16 }, () => new Uint8Array(MIB / 16));
    let collections = 0;
    await readAll(collectingAsItStreams(source(chunks), () => collections++));
    expect(collections).toBe(1);
  });

  it('hands the body back untouched when no collector is available (no --expose-gc)', () => {
    const body = source([]);
    expect(collectingAsItStreams(body, undefined)).toBe(body);
  });

  it('cancels the upstream body when the reader goes away mid-download', async () => {
    let cancelled = false;
    const chunks = Array.from({ length: 8 }, () => new Uint8Array(MIB));
    const reader = collectingAsItStreams(
      source(chunks, () => {
        cancelled = true;
      }),
      () => undefined,
    ).getReader();
    await reader.read();
    await reader.cancel();
    // The pipe passes the cancel on to its source a few ticks later.
    await vi.waitFor(() => expect(cancelled).toBe(true), { timeout: 2000 });
  });
});
