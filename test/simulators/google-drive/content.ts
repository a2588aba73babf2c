/**
 * File bytes generated on demand: line `n` of a file is 64 bytes derived from the file id and `n`, so any
 * byte range can be produced without holding the file, and a 200 MB download streams in constant memory.
 */
const LINE = 64;
const CHUNK_LINES = 1024;
const RING = 16;

/** Writes line `n` at `offset`: `<prefix> line <12 digits> ` then a filler letter, and a newline; no strings made. */
function line(prefix: Buffer, n: number, target: Buffer, offset: number): void {
  prefix.copy(target, offset);
  let at = offset + prefix.length + 12;
  for (let rest = n, i = 0; i < 12; i++, rest = Math.floor(rest / 10)) target[--at] = 48 + (rest % 10);
  at = offset + prefix.length + 12;
  target[at] = 32;
  target.fill(97 + (n % 26), at + 1, offset + LINE - 1);
  target[offset + LINE - 1] = 10;
}

/** Bytes [start, end] (inclusive) of the content seeded by `seed`, written into `into` when it is large enough. */
export function bytesAt(seed: string, start: number, end: number, into?: Buffer): Buffer {
  const prefix = Buffer.from(`${seed.slice(0, 16)} line `, 'latin1');
  const firstLine = Math.floor(start / LINE);
  const lastLine = Math.floor(end / LINE);
  const size = (lastLine - firstLine + 1) * LINE;
  const buffer = into && into.length >= size ? into.subarray(0, size) : Buffer.allocUnsafe(size);
  for (let n = firstLine; n <= lastLine; n++) line(prefix, n, buffer, (n - firstLine) * LINE);
  return buffer.subarray(start - firstLine * LINE, end - firstLine * LINE + 1);
}

export interface StreamEvents {
  onCancel?(bytesSent: number): void;
  onDone?(bytesSent: number): void;
}

/** A pull stream of bytes [start, end]: nothing is generated before the reader asks for it. */
export function contentStream(
  seed: string,
  start: number,
  end: number,
  events: StreamEvents = {},
): ReadableStream<Uint8Array> {
  let position = start;
  // A small ring of chunk buffers instead of a fresh 64 KiB per chunk: the reader (node-server) writes one chunk and
  // waits for 'drain' before pulling again, so a chunk is long written when its slot comes round, and a 200 MB
  // download allocates (almost) nothing.
  const ring = Array.from({ length: RING }, () => Buffer.allocUnsafe(CHUNK_LINES * LINE + LINE));
  let slot = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (position > end) {
          events.onDone?.(position - start);
          controller.close();
          return;
        }
        const chunkEnd = Math.min(end, position + CHUNK_LINES * LINE - 1);
        controller.enqueue(bytesAt(seed, position, chunkEnd, ring[slot++ % RING]));
        position = chunkEnd + 1;
      },
      cancel() {
        events.onCancel?.(position - start);
      },
    },
    { highWaterMark: 0 },
  );
}

/** Parses `bytes=a-b`, `bytes=a-`, `bytes=-n` against a length; null when unsatisfiable or malformed. */
export function parseRange(header: string, length: number): { start: number; end: number } | null {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  let start: number;
  let end: number;
  if (match[1] === '') {
    start = Math.max(0, length - Number(match[2]));
    end = length - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? length - 1 : Math.min(Number(match[2]), length - 1);
  }
  return start <= end && start < length ? { start, end } : null;
}
