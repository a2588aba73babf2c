import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';

/** Debian's chromium, installed by infra/scripts/ensure-chromium.sh (./dev test runs it). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`${CHROMIUM_PATH} is missing: run infra/scripts/ensure-chromium.sh (./dev test does)`);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_FLAGS });
}

const CONSOLE_DIR = fileURLToPath(new URL('../../apps/console/', import.meta.url));

/** ./dev test builds the console first; a test run on its own builds it when the build is missing. */
export function ensureConsoleBuilt(): void {
  if (existsSync(`${CONSOLE_DIR}dist/index.html`)) return;
  const built = spawnSync('pnpm', ['run', 'build'], { cwd: CONSOLE_DIR, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('the console build failed');
}
