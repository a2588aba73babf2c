import { readdirSync, readFileSync } from 'node:fs';
import { machineBusySeconds } from '../harness/api-process.ts';

/** CPU ms each process has used so far, with its command line, and the machine's busy seconds at that instant. */
export interface CpuSnapshot {
  readonly processes: ReadonlyMap<number, { readonly cmdline: string; readonly cpuMs: number }>;
  readonly machineSeconds: number;
}

export function cpuSnapshot(): CpuSnapshot {
  const processes = new Map<number, { cmdline: string; cpuMs: number }>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // After the command name (which may hold spaces): utime and stime are the 12th and 13th fields, in 10 ms ticks.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      processes.set(pid, { cmdline, cpuMs: (Number(fields[11]) + Number(fields[12])) * 10 });
    } catch {
      // Exited while being read.
    }
  }
  return { processes, machineSeconds: machineBusySeconds() };
}

/**
 * CPU seconds used between two snapshots, summed per group (`groupOf` names a process's group; a process started
 * in between counts whole). `unattributed`: the machine's busy time no process still alive accounts for (processes
 * that exited, interrupts).
 */
export function cpuByGroup(
  before: CpuSnapshot,
  after: CpuSnapshot,
  groupOf: (pid: number, cmdline: string) => string,
): Map<string, number> {
  const groups = new Map<string, number>();
  let attributed = 0;
  for (const [pid, { cmdline, cpuMs }] of after.processes) {
    const used = (cpuMs - (before.processes.get(pid)?.cpuMs ?? 0)) / 1000;
    if (used <= 0) continue;
    const group = groupOf(pid, cmdline);
    groups.set(group, (groups.get(group) ?? 0) + used);
    attributed += used;
  }
  groups.set('unattributed', Math.max(0, after.machineSeconds - before.machineSeconds - attributed));
  return groups;
}

/** The groups a sync or raw bulk run makes work: our processes, the database (its own backends apart), the engine. */
export function benchProcessGroups(own: {
  readonly worker?: number;
  readonly upstream?: number;
  /** This run's database: its backends are counted apart. */
  readonly database?: string;
}): (pid: number, cmdline: string) => string {
  return (pid, cmdline) => {
    if (pid === own.worker) return 'worker';
    if (pid === own.upstream) return 'upstream';
    if (pid === process.pid) return 'bench+API';
    if (cmdline.startsWith('postgres:')) {
      if (own.database !== undefined && cmdline.includes(` ${own.database} `)) return 'postgres (run db)';
      // Other databases' backends name their client; the rest is the server's own (WAL writer, checkpointer).
      return /\(\d+\)|\[local\]/.test(cmdline) ? 'postgres (other dbs)' : 'postgres (wal, checkpoint)';
    }
    if (cmdline.includes('org.opensearch.bootstrap.OpenSearch')) return 'opensearch';
    if (cmdline.startsWith('redis-server')) return 'redis';
    return 'other';
  };
}

/** CPU seconds per 1,000 records of each group, one column per measured side (`sides`: label, records, groups). */
export function cpuPerThousandTable(
  sides: readonly { readonly label: string; readonly records: number; readonly cpu: ReadonlyMap<string, number> }[],
): string[][] {
  const groups = [...new Set(sides.flatMap((side) => [...side.cpu.keys()]))].sort();
  const perThousand = (side: (typeof sides)[number], group?: string) => {
    const seconds =
      group === undefined ? [...side.cpu.values()].reduce((a, b) => a + b, 0) : (side.cpu.get(group) ?? 0);
    return ((seconds / side.records) * 1000).toFixed(3);
  };
  return [
    ...groups.map((group) => [group, ...sides.map((side) => perThousand(side, group))]),
    ['total', ...sides.map((side) => perThousand(side))],
  ];
}
