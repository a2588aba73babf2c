import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { API_NODE_FLAGS } from '@conduit/api';
import type { PlatformEnv } from '@conduit/platform';

const API_MAIN = fileURLToPath(new URL('../../apps/api/src/main.ts', import.meta.url));

/** The real API binary in its own process, so a test can measure its memory. */
export class ApiProcess {
  readonly #child: ChildProcess;
  readonly url: string;

  private constructor(child: ChildProcess, url: string) {
    this.#child = child;
    this.url = url;
  }

  /** `options.nodeFlags` are added to the API's own (e.g. --cpu-prof); `options.logLevel` defaults to warn. */
  static async start(
    env: PlatformEnv,
    extra: Record<string, string>,
    options: { nodeFlags?: readonly string[]; logLevel?: string } = {},
  ): Promise<ApiProcess> {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const child = spawn(process.execPath, [...API_NODE_FLAGS, ...(options.nodeFlags ?? []), API_MAIN], {
      env: {
        PATH: process.env.PATH,
        ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])),
        ...extra,
        PORT: String(port),
        LOG_LEVEL: options.logLevel ?? 'warn',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        if ((await fetch(`${url}/healthz`)).ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline || child.exitCode !== null) throw new Error('the API process did not start');
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

  async stop(): Promise<void> {
    if (this.#child.exitCode !== null) return;
    const exited = once(this.#child, 'exit');
    this.#child.kill('SIGTERM');
    await exited;
  }
}
