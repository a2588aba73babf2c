import { readFileSync } from 'node:fs';
import type pg from 'pg';
import { processCpuMs } from '../harness/api-process.ts';

/** The pid of the Postgres backend serving the connection named `application` (its application_name). */
export async function backendPid(client: pg.Client, application: string): Promise<number> {
  const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where application_name = $1', [
    application,
  ]);
  if (!rows[0]) throw new Error(`no backend for ${application}`);
  return rows[0].pid;
}

/** How many times the process has blocked so far (its voluntary context switches): each is a sleep and a wake-up. */
function sleeps(pid: number | 'self'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
}

/** The CPU `work` costs this process and the backend `pid`, in ms, with its wall time and how often each slept. */
export async function cpuOfWork(
  pid: number,
  work: () => Promise<void>,
): Promise<{ ownMs: number; backendMs: number; wallMs: number; ownSleeps: number; backendSleeps: number }> {
  const own = process.cpuUsage();
  const backend = processCpuMs(pid);
  const ownSlept = sleeps('self');
  const backendSlept = sleeps(pid);
  const started = performance.now();
  await work();
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(own);
  return {
    ownMs: (used.user + used.system) / 1000,
    backendMs: processCpuMs(pid) - backend,
    wallMs,
    ownSleeps: sleeps('self') - ownSlept,
    backendSleeps: sleeps(pid) - backendSlept,
  };
}
