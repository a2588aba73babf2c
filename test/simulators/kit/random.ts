/** What every simulator's data generator takes: the seed, and the period its instants fall in (ISO 8601). */
export interface SeededDataOptions {
  seed?: number;
  from?: string;
  to?: string;
}

/** Deterministic generator (mulberry32): the same seed always yields the same simulated data. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

export function int(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/** An instant between `from` and `to` (ISO strings), as epoch milliseconds rounded to the second. */
export function instantBetween(random: () => number, from: string, to: string): number {
  const a = Date.parse(from);
  const b = Date.parse(to);
  return Math.floor((a + random() * (b - a)) / 1000) * 1000;
}

export function hexId(random: () => number, length: number): string {
  let out = '';
  while (out.length < length) out += Math.floor(random() * 16).toString(16);
  return out;
}
