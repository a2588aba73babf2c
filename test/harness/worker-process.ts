import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { PlatformEnv } from '@conduit/config';
import { WORKER_NODE_FLAGS } from '@conduit/worker';
import { inheritedEnv } from './child-env.ts';

const WORKER_MAIN = fileURLToPath(new URL('../../apps/worker/src/main.ts', import.meta.url));

/** The real worker binary in its own process, so tests can SIGKILL or SIGTERM it mid-sync. */
export class WorkerProcess {
  #child: ChildProcess | null = null;
  readonly output: string[] = [];
  readonly #env: NodeJS.ProcessEnv;

  constructor(env: PlatformEnv, extra: Record<string, string> = {}) {
    this.#env = {
      ...inheritedEnv(),
      ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])),
      ...extra,
    };
  }

  start(): void {
    this.output.length = 0;
    const child = spawn(process.execPath, [...WORKER_NODE_FLAGS, WORKER_MAIN], {
      env: this.#env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => this.output.push(...chunk.toString().split('\n').filter(Boolean)));
    child.stderr?.on('data', (chunk: Buffer) => this.output.push(...chunk.toString().split('\n').filter(Boolean)));
    this.#child = child;
  }

  /** Resolves once the process has printed a line containing `text`. */
  async waitFor(text: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.output.some((line) => line.includes(text))) {
      if (Date.now() > deadline)
        throw new Error(`worker did not print '${text}'; output:\n${this.output.slice(-20).join('\n')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The running process's id (undefined before start). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** The exit code once the process has exited, null while it runs (or before start). */
  get exitCode(): number | null {
    return this.#child?.exitCode ?? null;
  }

  async kill(signal: NodeJS.Signals): Promise<number | null> {
    const child = this.#child;
    if (!child || child.exitCode !== null) return child?.exitCode ?? null;
    const exited = once(child, 'exit');
    child.kill(signal);
    const [code] = (await exited) as [number | null];
    this.#child = null;
    return code;
  }
}
