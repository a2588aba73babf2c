import { connect, type ExecuteResult } from '@conduit/connectors';
import { describe, expect, it } from 'vitest';
import { simulatorForAll } from '../harness/simulator-for-all.ts';
import { startSnapchatMarketing } from '../simulators/snapchat-marketing/simulator.ts';
import { startZendeskTalk } from '../simulators/zendesk-talk/simulator.ts';

/**
 * Issue 17 item 4: a live list's next-page value in `meta` is something the caller can pass back, and it is checked
 * like every upstream next link (same origin, and this very list: a caller cannot aim the connector's credentials
 * at another endpoint of the same upstream).
 */
type Body = { data: Record<string, unknown>[]; meta?: Record<string, unknown> };

function bodyOf(result: ExecuteResult): Body {
  if (result.type !== 'json') throw new Error('expected json');
  return result.body as Body;
}

async function walk(
  list: (params: Record<string, unknown>) => Promise<Body>,
  first: Record<string, unknown>,
  metaName: string,
): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let params = first;
  for (let pages = 1; ; pages++) {
    const body = await list(params);
    ids.push(...body.data.map((r) => String(r.id)));
    const next = body.meta?.[metaName];
    if (next === null || next === undefined) return { ids, pages };
    expect(typeof next).toBe('string');
    params = { ...first, [metaName]: next };
  }
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; errors: { path: string }[] }> {
  const error = (await promise.catch((e: unknown) => e)) as { code: string; errors: { path: string }[] };
  expect(error).toBeInstanceOf(Error);
  return error;
}

describe('Zendesk Talk live paging', () => {
  const sim = simulatorForAll(() => startZendeskTalk({ size: 120 }));
  const connector = () => connect('Zendesk-Talk', sim.credentials, sim.config, { baseUrl: sim.baseUrl });
  const list = async (entity: string, params: Record<string, unknown>) =>
    bodyOf(await connector().execute({ entity, action: 'list', params }));

  it('reads every phone number by passing meta.next_page back', async () => {
    const { ids, pages } = await walk((p) => list('phone_numbers', p), {}, 'next_page');
    expect(pages).toBe(2);
    expect(ids).toHaveLength(120);
    expect(new Set(ids).size).toBe(120);
  });

  it('continues an incremental export from its meta.next_page', async () => {
    const first = await list('calls', { start_time: 0 });
    expect(typeof first.meta?.next_page).toBe('string');
    const second = await list('calls', { next_page: first.meta?.next_page });
    expect(second.data.length).toBeGreaterThan(0);
    const firstIds = new Set(first.data.map((r) => r.id));
    expect(second.data.some((r) => !firstIds.has(r.id))).toBe(true);
  });

  it('refuses a next_page off the upstream origin, or on another endpoint of it', async () => {
    const { meta } = await list('phone_numbers', {});
    const next = new URL(String(meta?.next_page));
    const elsewhere = [
      `https://evil.example${next.pathname}${next.search}`,
      `${next.origin}${next.pathname.replace('phone_numbers', 'addresses')}${next.search}`,
      `${next.origin}/api/v2/users.json`,
      'not a url',
    ];
    for (const nextPage of elsewhere) {
      const error = await refusal(list('phone_numbers', { next_page: nextPage }));
      expect(error.code, nextPage).toBe('invalid_params');
      expect(error.errors[0]?.path).toBe('/params/next_page');
    }
    const exportError = await refusal(list('calls', { next_page: String(meta?.next_page) }));
    expect(exportError.code).toBe('invalid_params');
  });
});

describe('Snapchat live paging', () => {
  const sim = simulatorForAll(() => startSnapchatMarketing({ size: 120 }));
  const connector = () =>
    connect('Snapchat-Marketing', sim.credentials, sim.config, { baseUrl: sim.baseUrl, tokenUrl: sim.tokenUrl });
  const list = async (entity: string, params: Record<string, unknown>) =>
    bodyOf(await connector().execute({ entity, action: 'list', params }));
  const adAccount = () => String(sim.examples.find((e) => e.entity === 'campaigns')!.params.ad_account_id);

  it('reads every campaign of an ad account by passing meta.next_link back', async () => {
    const { ids, pages } = await walk(
      (p) => list('campaigns', p),
      { ad_account_id: adAccount(), limit: 50 },
      'next_link',
    );
    expect(pages).toBe(3);
    expect(ids).toHaveLength(120);
    expect(new Set(ids).size).toBe(120);
  });

  it("refuses a next_link off the API origin, or on another list (another ad account's, another collection)", async () => {
    const { meta } = await list('campaigns', { ad_account_id: adAccount(), limit: 50 });
    const next = new URL(String(meta?.next_link));
    const elsewhere = [
      `https://evil.example${next.pathname}${next.search}`,
      `${next.origin}${next.pathname.replace('campaigns', 'ads')}${next.search}`,
      `${next.origin}${next.pathname.replace(adAccount(), 'other-account')}${next.search}`,
    ];
    for (const nextLink of elsewhere) {
      const error = await refusal(list('campaigns', { ad_account_id: adAccount(), next_link: nextLink }));
      expect(error.code, nextLink).toBe('invalid_params');
      expect(error.errors[0]?.path).toBe('/params/next_link');
    }
  });
});
