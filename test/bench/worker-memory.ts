/**
 * Where a worker's memory is over a bench run (bench:sync BENCH_MEMORY=dir): loaded into the worker process with
 * `--import`, it appends JSON lines to WORKER_MEMORY_FILE: `process.memoryUsage()` every second, the same right
 * after each mark-compact (`after_gc`: heapUsed there is the live heap), and every 5 s the resident memory by kind
 * of mapping from /proc/self/smaps: `brk` (malloc's main arena), `arenas` (malloc's per-thread arenas, 64 MB-aligned
 * reservations), `anon` (every other anonymous mapping: V8's heap pages, large malloc blocks), `files`. Without the
 * variable, importing it does nothing. summarize() reads a file back, per tenth of the run.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { constants, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';

const FILE = process.env.WORKER_MEMORY_FILE;
const ARENA_ALIGN = 64 * 1024 * 1024;

interface Sample {
  t: number;
  kind: 'tick' | 'after_gc' | 'maps';
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  brk?: number;
  arenas?: number;
  anon?: number;
  files?: number;
}

const mb = (bytes: number) => Math.round(bytes / 104857.6) / 10;

if (FILE) {
  const started = performance.now();
  const write = (kind: Sample['kind'], extra: Partial<Sample> = {}) => {
    const m = process.memoryUsage();
    const sample: Sample = {
      t: Math.round(performance.now() - started) / 1000,
      kind,
      rss: mb(m.rss),
      heapUsed: mb(m.heapUsed),
      heapTotal: mb(m.heapTotal),
      external: mb(m.external),
      arrayBuffers: mb(m.arrayBuffers),
      ...extra,
    };
    appendFileSync(FILE, `${JSON.stringify(sample)}\n`);
  };
  setInterval(() => write('tick'), 1000).unref();
  setInterval(() => write('maps', residentByMapping()), 5000).unref();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      if (
        (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ===
        constants.NODE_PERFORMANCE_GC_MAJOR
      )
        write('after_gc');
  }).observe({ entryTypes: ['gc'] });
}

function residentByMapping(): Pick<Sample, 'brk' | 'arenas' | 'anon' | 'files'> {
  const kb = { brk: 0, arenas: 0, anon: 0, files: 0 };
  let mapping: { start: number; name: string } | undefined;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (head) {
      mapping = { start: Number.parseInt(head[1]!, 16), name: head[2]! };
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (!rss || !mapping) continue;
    const key =
      mapping.name === '[heap]'
        ? 'brk'
        : mapping.name.startsWith('/')
          ? 'files'
          : mapping.name === '' && mapping.start % ARENA_ALIGN === 0
            ? 'arenas'
            : 'anon';
    kb[key] += Number(rss[1]);
  }
  return { brk: mb(kb.brk * 1024), arenas: mb(kb.arenas * 1024), anon: mb(kb.anon * 1024), files: mb(kb.files * 1024) };
}

/** One row per tenth of the run: the largest RSS, heapTotal and external, the live heap (after GC), maps. */
export function summarize(file: string): string[][] {
  const samples = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Sample);
  const end = Math.max(...samples.map((s) => s.t));
  const range = (values: number[]) =>
    values.length === 0 ? '-' : `${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)}`;
  return Array.from({ length: 10 }, (_, i) => {
    const inSlice = samples.filter((s) => s.t >= (end * i) / 10 && s.t <= (end * (i + 1)) / 10);
    const maps = inSlice.filter((s) => s.kind === 'maps').at(-1);
    return [
      `${i * 10}-${(i + 1) * 10}%`,
      range(inSlice.map((s) => s.rss)),
      range(inSlice.filter((s) => s.kind === 'after_gc').map((s) => s.heapUsed)),
      range(inSlice.map((s) => s.heapTotal)),
      range(inSlice.map((s) => s.external)),
      maps ? `${maps.brk} / ${maps.arenas} / ${maps.anon} / ${maps.files}` : '-',
    ];
  });
}

export const MEMORY_COLUMNS = [
  'part of the run',
  'RSS MB',
  'live heap MB (after GC)',
  'heapTotal MB',
  'external MB',
  'resident brk / arenas / anon / files MB',
];
