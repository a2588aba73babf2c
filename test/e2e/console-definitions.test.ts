import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt, launchChromium } from '../harness/chromium.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { tasklaneDefinition } from '../simulators/tasklane/definition.ts';
import { startTasklane, type TasklaneSimulator } from '../simulators/tasklane/simulator.ts';

/** Screenshots for people to look at (git-ignored). */
const SHOTS = fileURLToPath(new URL('../../.artifacts/console/', import.meta.url));

describe('the console’s Definitions page in headless Chromium', () => {
  let upstream: TasklaneSimulator;
  let platform: TestPlatform;
  let browser: Browser;
  let page: Page;
  const shot = (name: string) => page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });

  beforeAll(async () => {
    ensureConsoleBuilt();
    mkdirSync(SHOTS, { recursive: true });
    upstream = await startTasklane();
    platform = await startTestPlatform({ worker: false, env: { CONNECTOR_EGRESS_ALLOW: new URL(upstream.url).host } });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    page.setDefaultTimeout(20_000);
    await page.goto(`${platform.url}/console`);
    await page.fill('input[name=client_id]', platform.clientId);
    await page.fill('input[name=client_secret]', platform.clientSecret);
    await page.click('button[type=submit]');
    await page.getByRole('link', { name: 'Definitions' }).click();
    await page.locator('[data-testid=definition-editor] .cm-content').waitFor();
  });

  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail' && page) await shot(`failed-${task.name.slice(0, 40).replace(/\W+/g, '-')}`);
  });

  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    await upstream?.close();
  });

  const editor = () => page.locator('[data-testid=definition-editor] .cm-content');
  const replaceDefinition = async (value: unknown) => {
    await editor().click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.insertText(JSON.stringify(value, null, 2));
  };

  it('checks the definition against the format’s JSON Schema as you type, and completes its keys', async () => {
    const bad = tasklaneDefinition(upstream.url) as Record<string, unknown> & {
      entities: { tasks: Record<string, unknown> };
    };
    bad.entities.tasks.serchable = 'all';
    await replaceDefinition(bad);
    // The unknown key is underlined in the editor before anything is sent.
    await page.locator('[data-testid=definition-editor] .cm-lintRange-error').first().waitFor();
    // Completion of the keys the schema allows in an entity.
    await editor().click();
    await page.keyboard.press('ControlOrMeta+End');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.insertText('{"entities": {"tasks": {"sea');
    await page.keyboard.press('Control+Space');
    await page.locator('.cm-tooltip-autocomplete').getByText('searchable').first().waitFor();
    await page.keyboard.press('Escape');
    await shot('definitions-1-schema-checks');
  });

  it('shows the API’s problems with their JSON pointers, saves a version and tests it as tables', async () => {
    const bad = tasklaneDefinition(upstream.url) as Record<string, unknown> & {
      entities: { tasks: Record<string, unknown> };
    };
    bad.entities.tasks.serchable = 'all';
    await replaceDefinition(bad);
    await page.getByRole('button', { name: 'Validate' }).click();
    await page.getByTestId('problem').waitFor();
    expect(await page.getByTestId('problem').textContent()).toContain('/entities/tasks/serchable');

    await replaceDefinition(tasklaneDefinition(upstream.url));
    await page.getByRole('button', { name: 'Save version' }).click();
    await expect.poll(() => page.getByTestId('definition-notice').textContent()).toContain('Saved Tasklane, version 1');
    expect(await page.getByTestId('active-Tasklane').textContent()).toBe('1');

    await page.fill('[data-testid=test-credentials]', JSON.stringify({ api_key: upstream.apiKey }));
    await page.getByRole('button', { name: 'Test' }).click();
    const rows = page.locator('[data-testid=test-results] table').first().locator('tbody tr');
    await rows.first().waitFor();
    const tasks = await rows.filter({ hasText: 'tasks' }).locator('td').allTextContents();
    expect(tasks).toEqual(['tasks', '100', '1', 'none']);
    expect(await page.getByTestId('test-results').textContent()).not.toContain(upstream.apiKey);
    await shot('definitions-2-tested');
  });

  it('activates an older version from the list (a rollback)', async () => {
    const v2 = tasklaneDefinition(upstream.url);
    v2.rate_limit.per_second = 10;
    await replaceDefinition(v2);
    await page.getByRole('button', { name: 'Save version' }).click();
    await expect.poll(() => page.getByTestId('definition-notice').textContent()).toContain('version 2');
    await page.getByRole('button', { name: 'v2' }).click();
    await expect.poll(() => page.getByTestId('active-Tasklane').textContent()).toBe('2');
    await page.getByRole('button', { name: 'v1' }).click();
    await expect.poll(() => page.getByTestId('active-Tasklane').textContent()).toBe('1');
    await shot('definitions-3-rolled-back');
  });
});
