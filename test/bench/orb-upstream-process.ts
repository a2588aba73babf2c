import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/**
 * The Orb simulator of scaleout-upstream.ts in a process of its own (SCALEOUT_CUSTOMERS, SCALEOUT_LATENCY_MS from
 * `env`), so the processes a bench measures do not share its CPU. Resolves once it listens; kill the process after.
 */
export async function spawnOrbUpstream(
  env: NodeJS.ProcessEnv,
): Promise<{ readonly url: string; readonly apiKey: string; readonly process: ChildProcess }> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./scaleout-upstream.ts', import.meta.url))], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  const { url, apiKey } = JSON.parse(line) as { url: string; apiKey: string };
  return { url, apiKey, process: child };
}
