import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt, launchChromium } from '../harness/chromium.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import type { SimulatorHandle } from '../simulators/kit/fixture.ts';
import { startOrb } from '../simulators/orb/simulator.ts';

/** Screenshots for people to look at (git-ignored). */
const SHOTS = fileURLToPath(new URL('../../.artifacts/console/', import.meta.url));

describe('the web console in headless Chromium', () => {
  let sim: SimulatorHandle;
  let platform: TestPlatform;
  let browser: Browser;
  let page: Page;
  const shot = (name: string) => page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });

  beforeAll(async () => {
    ensureConsoleBuilt();
    mkdirSync(SHOTS, { recursive: true });
    sim = await startOrb({ size: 30 });
    platform = await startTestPlatform({ overrides: { baseUrls: { ORB: sim.baseUrl }, tokenUrls: {} } });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(20_000);
  });

  // A failing step leaves a picture of what the page showed.
  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail' && page) await shot(`failed-${task.name.slice(0, 40).replace(/\W+/g, '-')}`);
  });

  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    await sim?.close();
  });

  it('is served by the API with a strict content security policy', async () => {
    const response = await fetch(`${platform.url}/console/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await response.text()).toContain('<div id="app">');
    expect((await fetch(`${platform.url}/console`, { redirect: 'manual' })).headers.get('location')).toBe('/console/');
  });

  it('renders forms from the catalog the API publishes', async () => {
    const catalog = (await (await fetch(`${platform.url}/api/v1/catalog`)).json()) as {
      kinds: { connector_type: string; credentials: { required?: string[] }; entities: { name: string }[] }[];
    };
    expect(catalog.kinds.map((k) => k.connector_type)).toContain('Orb');
    const orb = catalog.kinds.find((k) => k.connector_type === 'Orb')!;
    expect(orb.credentials.required).toEqual(['api_key']);
    expect(orb.entities.map((e) => e.name)).toEqual(expect.arrayContaining(['customers', 'invoices']));
  });

  it('signs in with the client id and secret, and says so when they are wrong', async () => {
    await page.goto(`${platform.url}/console`);
    await page.fill('input[name=client_id]', platform.clientId);
    await page.fill('input[name=client_secret]', 'not-the-secret');
    await page.click('button[type=submit]');
    await page.getByTestId('problem').waitFor();
    expect(await page.getByTestId('problem').textContent()).toContain('401');

    await page.fill('input[name=client_secret]', platform.clientSecret);
    await page.click('button[type=submit]');
    await page.getByRole('link', { name: 'New connector' }).waitFor();
    // Only the token is kept, never the secret.
    const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }));
    expect(stored).not.toContain(platform.clientSecret);
  });

  it('creates a connector through the form generated from the catalog, and watches its entities turn ready', async () => {
    await page.getByRole('link', { name: 'New connector' }).click();
    await page.selectOption('select[name=connector_type]', 'Orb');
    await page.fill('input[name=customer_name]', 'acme');
    await page.fill('input[name=name]', 'billing');
    await page.fill('input[name="credentials.api_key"]', String(sim.credentials.api_key));
    await page.fill('input[name="replication_config.start_date"]', String(sim.replicationConfig.start_date));
    await shot('1-create-form');
    await page.getByRole('button', { name: 'Create connector' }).click();

    await page.getByTestId('connector-detail').waitFor();
    expect(await page.getByTestId('connectors').textContent()).toContain('billing');
    // The list refreshes by itself while the first sync runs: no reload, no click.
    await page.locator('[data-entity=customers] [data-status=ready]').waitFor({ timeout: 90_000 });
    await page.locator('[data-entity=invoices] [data-status=ready]').waitFor({ timeout: 90_000 });
    const customers = await page.locator('[data-entity=customers] td.num').textContent();
    expect(Number(customers?.replaceAll(',', ''))).toBe(sim.expectedKeys('customers').length);
    // The connector's recent changes: the first pass created its records.
    await page.getByTestId('refresh-changes').click();
    await page.locator('[data-testid=recent-changes] tr[data-change="record.created"]').first().waitFor();
    await shot('2-connectors-ready');
  });

  it('runs a search built with the filter builder and shows its rows, took_ms and paging', async () => {
    await page.getByRole('link', { name: 'Search' }).click();
    await page.selectOption('select[name=search_entity]', 'customers');
    const target = sim.expectedKeys('customers')[0]!;
    await page.getByRole('button', { name: '+ condition' }).click();
    await page.selectOption('select[name=filter_field]', 'id');
    await page.selectOption('select[name=filter_op]', 'eq');
    await page.fill('input[name=filter_value]', target);
    // The builder writes the raw JSON editor, which is what runs.
    await expect
      .poll(async () => JSON.parse(await page.inputValue('textarea[name=search_json]')))
      .toMatchObject({ query: { filter: { eq: { id: target } } } });
    await page.getByTestId('run-search').click();
    await page.getByTestId('results-table').waitFor();
    const rows = page.locator('[data-testid=results-table] tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain(target);
    expect(Number(await page.getByTestId('took-ms').textContent())).toBeGreaterThanOrEqual(0);

    // No filter, 10 per page: the next page holds the next 10 records.
    await page.getByRole('button', { name: 'remove' }).click();
    await page.fill('input[name=search_limit]', '10');
    await page.getByTestId('run-search').click();
    await page.locator('[data-testid=results-table] tbody tr').nth(9).waitFor();
    const first = await page.locator('[data-testid=results-table] tbody tr').first().textContent();
    await page.getByTestId('next-page').click();
    await page.getByText('page 2').waitFor();
    expect(await page.locator('[data-testid=results-table] tbody tr').count()).toBe(10);
    expect(await page.locator('[data-testid=results-table] tbody tr').first().textContent()).not.toBe(first);
    await shot('3-search-results');
  });

  it('shows a bad filter’s problem details with the field path', async () => {
    await page.fill(
      'textarea[name=search_json]',
      JSON.stringify({ query: { filter: { eq: { no_such_field: 'x' } } }, limit: 5 }),
    );
    await page.getByTestId('run-search').click();
    const problem = page.getByTestId('problem');
    await problem.waitFor();
    const text = (await problem.textContent()) ?? '';
    expect(text).toContain('400');
    expect(text).toContain('no_such_field');
    expect(text).toMatch(/invalid_(filter|params)/);
    await shot('4-bad-filter');
  });

  it('counts records by a field (aggregations) next to the rows', async () => {
    await page.selectOption('select[name=count_by]', 'timezone');
    await expect
      .poll(async () => JSON.parse(await page.inputValue('textarea[name=search_json]')))
      .toMatchObject({ aggregate: { by_timezone: { count_by: 'timezone' } } });
    await page.getByTestId('run-search').click();
    const table = page.locator('[data-testid=aggregations] tbody tr');
    await table.first().waitFor();
    const counts = await page.locator('[data-testid=aggregations] tbody tr td:last-child').allTextContents();
    expect(counts.map(Number).reduce((a, b) => a + b, 0)).toBe(sim.expectedKeys('customers').length);
    await shot('6-aggregations');
  });

  it('runs SQL from the search page’s SQL tab, completing tables, and charts grouped rows (bars, then a line)', async () => {
    await page.getByRole('link', { name: 'Search' }).click();
    await page.getByTestId('sql-tab').click();
    const editor = page.locator('[data-testid=sql-editor] .cm-content');
    await editor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type('SELECT * FROM inv');
    // Completion of the connector's tables (CodeMirror's lang-sql, fed from the catalog).
    await page.locator('.cm-tooltip-autocomplete').getByText('invoices').first().waitFor();
    await page.keyboard.press('Escape');

    const replaceQuery = async (text: string) => {
      await editor.click();
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.insertText(text);
    };
    await replaceQuery('SELECT status, COUNT(*) AS n FROM invoices GROUP BY status ORDER BY n DESC');
    await page.getByTestId('run-sql').click();
    await page.locator('[data-testid=sql-chart][data-chart=bar] canvas').waitFor();
    const counts = await page.locator('[data-testid=results-table] tbody tr td:last-child').allTextContents();
    expect(counts.map(Number).reduce((a, b) => a + b, 0)).toBe(new Set(sim.expectedKeys('invoices')).size);
    // Highlighted SQL: a keyword is drawn in another colour than a column name.
    const colour = (text: string) =>
      page
        .locator('[data-testid=sql-editor] .cm-line span', { hasText: text })
        .first()
        .evaluate((e) => e.ownerDocument.defaultView!.getComputedStyle(e).color);
    const lineColour = await page
      .locator('[data-testid=sql-editor] .cm-line')
      .first()
      .evaluate((e) => e.ownerDocument.defaultView!.getComputedStyle(e).color);
    expect(await colour('SELECT')).not.toBe(lineColour);
    await shot('7-sql-bar-chart');

    await replaceQuery(
      "SELECT DATE_TRUNC('month', invoice_date) AS month, COUNT(*) AS invoices FROM invoices GROUP BY 1 ORDER BY 1",
    );
    await page.getByTestId('run-sql').click();
    await page.locator('[data-testid=sql-chart][data-chart=line] canvas').waitFor();
    const months = await page.locator('[data-testid=results-table] tbody tr td:first-child').allTextContents();
    expect(months.length).toBeGreaterThan(1);
    expect(months).toEqual([...months].sort());
    await shot('8-sql-line-chart');

    await replaceQuery('SELECT stauts FROM invoices');
    await page.getByTestId('run-sql').click();
    const problem = page.getByTestId('problem');
    await problem.waitFor();
    expect(await problem.textContent()).toContain("Did you mean 'status'");
  });

  it('runs a live action and shows the upstream records', async () => {
    await page.getByRole('link', { name: 'Live actions' }).click();
    await page.selectOption('select[name=action_entity]', 'customers');
    await page.selectOption('select[name=action_name]', 'list');
    await page.fill('textarea[name=action_json]', JSON.stringify({ limit: 3 }));
    await page.getByTestId('run-action').click();
    await page.getByTestId('action-result').waitFor();
    expect(await page.locator('[data-testid=action-result] tbody tr').count()).toBe(3);
  });

  it('adds a webhook endpoint (its secret shown once), lists its deliveries, replays, and deletes it', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.fill('input[name=url]', 'http://127.0.0.1:9/hooks');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    // Outside the local profile, http and loopback addresses are refused, with the field named.
    expect(await page.getByTestId('problem').textContent()).toContain('/url');
    await page.fill('input[name=url]', 'https://hooks.example.com/conduit');
    await page.fill('input[name=entities]', 'customers');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = await page.getByTestId('webhook-secret').textContent();
    expect(secret).toMatch(/whsec_/);
    const row = page.locator('[data-testid=endpoints] tr[data-endpoint]');
    expect(await row.first().textContent()).toContain('customers');
    await page.getByRole('button', { name: 'deliveries' }).click();
    await page.getByTestId('deliveries').waitFor();
    await page.getByTestId('replay').click();
    await page.getByText('Replaying the changes after 0').waitFor();
    await shot('7-webhooks');
    await page.getByRole('button', { name: 'delete', exact: true }).click();
    await page.getByText('No endpoints yet.').waitFor();
    expect(await page.getByTestId('problem').count()).toBe(0);
  });

  it('shows the activity: the calls just made, filtered by status, with their latency over time', async () => {
    await page.getByRole('link', { name: 'Activity' }).click();
    await page.getByTestId('activity-table').waitFor();
    const actions = await page.locator('[data-testid=activity-table] tbody tr td:nth-child(2)').allTextContents();
    expect(actions).toEqual(expect.arrayContaining(['execute.list', 'execute.search', 'connector.create']));
    await page.getByTestId('latency-chart').waitFor();
    expect(await page.locator('[data-testid=latency-chart] circle').count()).toBe(actions.length);
    await page.selectOption('select[name=status]', 'error');
    const statusCells = page.locator('[data-testid=activity-table] tbody tr td:nth-child(6)');
    // The search with a misspelt field earlier answered 400 invalid_filter; only such calls remain.
    await expect
      .poll(async () => {
        const statuses = await statusCells.allTextContents();
        return statuses.length > 0 && statuses.every((text) => text.startsWith('4'));
      })
      .toBe(true);
    expect(await statusCells.allTextContents()).toContainEqual(expect.stringContaining('invalid_filter'));
    await shot('activity');
  });

  it('shows the organization’s usage: its calls by class per day in a chart, and its quotas', async () => {
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByTestId('usage-totals').waitFor();
    const total = (metric: string) =>
      page.locator(`[data-testid=usage-totals] tr[data-metric=${metric}] td:nth-child(2)`).textContent();
    // The searches and the live list made above, counted by class.
    expect(Number(await total('api_search'))).toBeGreaterThan(0);
    expect(Number(await total('api_execute'))).toBeGreaterThan(0);
    await page.getByTestId('sql-chart').waitFor();
    expect(await page.getByTestId('sql-chart').getAttribute('data-chart')).toBe('line');
    const connectors = page.locator('[data-testid=usage-quotas] tr[data-quota=connectors] td');
    expect(await connectors.allTextContents()).toEqual(['connectors', '1', 'none']);
    await shot('usage');
  });

  it('returns to the sign-in form when the API no longer accepts the token', async () => {
    await page.evaluate(() => {
      for (const key of Object.keys(sessionStorage)) sessionStorage.setItem(key, 'revoked-token');
    });
    await page.reload();
    // The connectors list answers 401: the token is dropped and the sign-in form comes back.
    await page.locator('input[name=client_id]').waitFor();
    expect(await page.evaluate(() => Object.values(sessionStorage))).not.toContain('revoked-token');
  });

  it('opens the API reference (/docs) with no request off this origin', async () => {
    const origin = new URL(platform.url).origin;
    const elsewhere: string[] = [];
    const docs = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    docs.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) elsewhere.push(url);
    });
    await docs.goto(`${platform.url}/docs`);
    // Rendered from /openapi.json: its title and a tag group of operations.
    await docs.getByText('Conduit: hosted connector execution').first().waitFor({ timeout: 30_000 });
    await docs.getByText('Execute and search').first().waitFor({ timeout: 30_000 });
    await docs.screenshot({ path: `${SHOTS}5-api-reference.png` });
    await docs.close();
    expect(elsewhere).toEqual([]);
  });
});
