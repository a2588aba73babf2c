import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/**
 * An Orb upstream in a process of its own, so the processes a bench measures do not share its CPU: by default the
 * simulator of scaleout-upstream.ts (SCALEOUT_CUSTOMERS, SCALEOUT_LATENCY_MS from `env`), or another script of
 * this folder that prints its URL and key the same way (sync-upstream.ts). Resolves once it listens; kill the
 * process after.
 */
export async function spawnOrbUpstream(
  env: NodeJS.ProcessEnv,
  script: URL = new URL('./scaleout-upstream.ts', import.meta.url),
): Promise<{ readonly url: string; readonly apiKey: string; readonly process: ChildProcess }> {
  const child = spawn(process.execPath, [fileURLToPath(script)], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  const { url, apiKey } = JSON.parse(line) as { url: string; apiKey: string };
  return { url, apiKey, process: child };
}
