import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PlatformEnv } from '@conduit/config';
import { inheritedEnv } from './child-env.ts';
import { freePort } from './free-port.ts';

const THIS_CHECKOUT = fileURLToPath(new URL('../../', import.meta.url));
const API_MAIN = 'apps/api/src/main.ts';

interface ApiStartOptions {
  readonly nodeFlags?: readonly string[];
  readonly logLevel?: string;
  readonly startTimeoutMs?: number;
  readonly checkout?: string;
}

/** The real API binary in its own process, so a test can measure its memory or kill it. */
export class ApiProcess {
  readonly #child: ChildProcess;
  readonly url: string;

  private constructor(child: ChildProcess, url: string) {
    this.#child = child;
    this.url = url;
  }

  /**
   * `options.nodeFlags` are added to the API's own (e.g. --cpu-prof); `options.logLevel` defaults to warn;
   * `options.checkout` runs another checkout's API (the root of a worktree at another commit) instead of this one's.
   */
  static async start(
    env: PlatformEnv,
    extra: Record<string, string>,
    options: ApiStartOptions = {},
  ): Promise<ApiProcess> {
    // A port the system just handed out (not a random guess, which may be another service answering /healthz);
    // should someone take it before the API binds it, the API exits and we try again on another.
    for (let attempt = 1; ; attempt++) {
      const started = await ApiProcess.#startOn(await freePort(), env, extra, options);
      if (started || attempt === 3) {
        if (!started) throw new Error('the API process did not start');
        return started;
      }
    }
  }

  static async #startOn(
    port: number,
    env: PlatformEnv,
    extra: Record<string, string>,
    options: ApiStartOptions,
  ): Promise<ApiProcess | null> {
    const main = join(options.checkout ?? THIS_CHECKOUT, API_MAIN);
    const child = spawn(process.execPath, [...(options.nodeFlags ?? []), main], {
      env: {
        ...inheritedEnv(),
        ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])),
        ...extra,
        PORT: String(port),
        LOG_LEVEL: options.logLevel ?? 'warn',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
    for (;;) {
      try {
        if ((await fetch(`${url}/healthz`)).ok) break;
      } catch {
        // not listening yet
      }
      if (child.exitCode !== null) return null;
      if (Date.now() > deadline) throw new Error('the API process did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    return new ApiProcess(child, url);
  }

  /** Resident set size in bytes, from /proc. */
  rssBytes(): number {
    const status = readFileSync(`/proc/${this.#child.pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return kb * 1024;
  }

  /** CPU time (user + system) the process has used so far, in ms, from /proc (clock ticks of 10 ms). */
  cpuMs(): number {
    return processCpuMs(this.#child.pid!);
  }

  /** Ends the process at once (SIGKILL), as a crash would: no shutdown, nothing finished or flushed. */
  async kill(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = once(this.#child, 'exit');
    this.#child.kill('SIGKILL');
    await exited;
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode !== null) return;
    const exited = once(this.#child, 'exit');
    this.#child.kill('SIGTERM');
    await exited;
  }
}

/** CPU time (user + system) process `pid` has used so far, in ms, from /proc (clock ticks of 10 ms). */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Busy CPU seconds of the whole machine so far (every core, from /proc/stat's first line): what a side of a
 * benchmark costs in all the processes it makes work (engine, database, our own), read around that side alone.
 */
export function machineBusySeconds(): number {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .split('\n', 1)[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) / 100;
}
