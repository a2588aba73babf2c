const MIB = 1024 * 1024;
/** How many bytes may pass between two young-generation collections while a download streams. */
export const YOUNG_COLLECTION_EVERY_BYTES = 16 * MIB;

type CollectYoung = () => void;

/** V8's young-generation collection, when the process runs with `--expose-gc` (node-flags.ts). */
export const collectYoungGeneration: CollectYoung | undefined = globalThis.gc
  ? () => globalThis.gc?.({ type: 'minor' })
  : undefined;

/**
 * A download's bytes, passed on as they come, with a young-generation collection every
 * YOUNG_COLLECTION_EVERY_BYTES. Each upstream socket read lands in a buffer of its own outside the JS heap. V8
 * frees that buffer only when a collection finds its small JS wrapper dead. The API's young generation is sized
 * for searches (node-flags.ts), and a download allocates so few JS objects that 200 MB streamed without a single
 * scavenge (`--trace-gc`). The dead reads then pile up to V8's external-memory limit (about 64 MB), and only a full
 * collection releases them: 86 MB of RSS growth over 200 MB with 16 MB semi-spaces
 * (test/e2e/download-streaming.test.ts). Without a collector (no `--expose-gc`, as in the tests' in-process API),
 * the body passes through untouched.
 */
export function collectingAsItStreams(
  body: ReadableStream<Uint8Array>,
  collectYoung: CollectYoung | undefined,
): ReadableStream<Uint8Array> {
  if (!collectYoung) return body;
  let sinceCollection = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        controller.enqueue(chunk);
        sinceCollection += chunk.byteLength;
        if (sinceCollection >= YOUNG_COLLECTION_EVERY_BYTES) {
          sinceCollection = 0;
          collectYoung();
        }
      },
    }),
  );
}
