import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt, launchChromium } from '../harness/chromium.ts';
import { orbConnectorWithWebhooks } from '../harness/orb-connector.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { type OrbSimulator, startOrbSimulator } from '../simulators/orb/simulator.ts';
import { orbCustomerEvent } from '../simulators/orb/webhooks.ts';

/** Screenshots for people to look at (git-ignored). */
const SHOTS = fileURLToPath(new URL('../../.artifacts/console/', import.meta.url));
/** The connectors page polls an idle list this often: a live update must come well before it. */
const POLL_MS = 15_000;

describe('the console updates live when the copy changes (headless Chromium)', () => {
  let sim: OrbSimulator;
  let platform: TestPlatform;
  let browser: Browser;
  let page: Page;
  let connectorId: string;
  const shot = (name: string) => page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });

  /** A customer created upstream, announced by the vendor's signed webhook (the copy re-reads it). */
  const createUpstream = async (n: number) => {
    const template = sim.data.customers[0]!;
    const customer = { ...template, id: `cus_live_${n}`, name: `Live ${n}`, created_at: new Date().toISOString() };
    sim.data.customers.push(customer);
    const { eventId, body } = orbCustomerEvent('customer.created', { id: customer.id });
    expect(await sim.webhooks.sender.emit(body, eventId)).toBe(202);
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    mkdirSync(SHOTS, { recursive: true });
    sim = await startOrbSimulator({ customers: 9, subscriptionsPerCustomer: 0 });
    platform = await startTestPlatform({ overrides: { baseUrls: { ORB: sim.url }, tokenUrls: {} } });
    connectorId = await orbConnectorWithWebhooks(platform, sim, 'live', '2020-01-01T00:00:00Z');
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(20_000);
    await page.goto(`${platform.url}/console`);
    await page.fill('input[name=client_id]', platform.clientId);
    await page.fill('input[name=client_secret]', platform.clientSecret);
    await page.click('button[type=submit]');
    await page.getByRole('link', { name: 'Connectors' }).waitFor();
  }, 180_000);

  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail' && page) await shot(`failed-${task.name.slice(0, 40).replace(/\W+/g, '-')}`);
  });

  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    await sim?.close();
  });

  it('shows a connector’s record count change without a reload, sooner than its polling would', async () => {
    await page.getByRole('link', { name: 'Connectors' }).click();
    await page.getByText('live', { exact: true }).first().click();
    const count = page.locator('[data-entity=customers] td.num');
    await expect.poll(() => count.textContent(), { timeout: 10_000 }).toBe(String(sim.data.customers.length));
    const before = sim.data.customers.length;
    const started = Date.now();
    // A customer created upstream, read by the next incremental run (which keeps the entity's count).
    const template = sim.data.customers[0]!;
    sim.data.customers.push({ ...template, id: 'cus_live_0', name: 'Live 0', created_at: new Date().toISOString() });
    const sync = await platform.call('POST', `/api/v1/integrations/connectors/${connectorId}/sync`, {
      entity: 'customers',
    });
    expect(sync.status).toBe(202);
    await expect.poll(() => count.textContent(), { timeout: POLL_MS - 5000 }).toBe(String(before + 1));
    expect(Date.now() - started).toBeLessThan(POLL_MS);
    await shot('live-1-counts');
  });

  it('runs an open SQL answer (and its chart) again when the copy changes', async () => {
    await page.getByRole('link', { name: 'Search' }).click();
    await page.getByTestId('sql-tab').click();
    await page.locator('[data-testid=sql-editor] .cm-content').click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.insertText('SELECT COUNT(*) AS n FROM customers');
    await page.getByTestId('run-sql').click();
    const n = page.locator('[data-testid=results-table] tbody tr td').first();
    await expect.poll(() => n.textContent()).toBe(String(sim.data.customers.length));
    const before = sim.data.customers.length;
    await createUpstream(2);
    // No click, no reload: the change stream brings the change and the page asks the question again.
    await expect.poll(() => n.textContent(), { timeout: 10_000 }).toBe(String(before + 1));
    expect(await page.getByTestId('sql-live').textContent()).toContain('updated');
    await shot('live-2-sql');
  });
});
