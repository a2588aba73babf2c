import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { simulatorForAll } from '../harness/simulator-for-all.ts';
import { startTypeformSimulator } from '../simulators/typeform/simulator.ts';

type Page<T> = { total_items: number; page_count: number; items: T[] };
type ApiError = Error & { code: string };
/** The part of the client used here. Its package ships a `.ts` type file that our strict compiler rejects, so the
 * client is loaded as plain JavaScript and typed locally. */
interface TypeformClient {
  forms: {
    list(args?: { page?: number | 'auto'; pageSize?: number }): Promise<Page<{ id: string }>>;
    get(args: { uid: string }): Promise<{ id: string }>;
  };
  responses: {
    list(args: { uid: string; pageSize?: number; page?: 'auto' }): Promise<Page<{ response_id: string }>>;
  };
  workspaces: { list(args?: { pageSize?: number }): Promise<Page<unknown>> };
  themes: { list(args?: { pageSize?: number }): Promise<Page<unknown>> };
  images: { list(): Promise<unknown[]> };
  webhooks: { list(args: { uid: string }): Promise<unknown> };
}
const { createClient } = createRequire(import.meta.url)('@typeform/api-client') as {
  createClient(args: { token: string; apiBaseUrl: string }): TypeformClient;
};

/**
 * Typeform's official JavaScript client (@typeform/api-client) against our Typeform simulator. The client sends
 * `Authorization: bearer <token>` (lower-case scheme): RFC 9110 makes the scheme case-insensitive, and so must we.
 */
describe('@typeform/api-client (official client) against the Typeform simulator', () => {
  const sim = simulatorForAll(() =>
    startTypeformSimulator({ forms: 7, responsesPerForm: 6, firstFormResponses: 1500 }),
  );
  let typeform: TypeformClient;
  beforeAll(() => {
    typeform = createClient({ token: sim.personalToken, apiBaseUrl: sim.url });
  });

  it('lists forms page by page, and every form with page=auto', async () => {
    const first = await typeform.forms.list({ page: 1, pageSize: 4 });
    expect(first.total_items).toBe(7);
    expect(first.page_count).toBe(2);
    expect(first.items).toHaveLength(4);
    const second = await typeform.forms.list({ page: 2, pageSize: 4 });
    expect(second.items).toHaveLength(3);
    const all = await typeform.forms.list({ page: 'auto' });
    expect(all.items.map((f) => f.id).sort()).toEqual(sim.data.forms.map((f) => f.id).sort());
  });

  it('gets a form by id', async () => {
    const form = sim.data.forms[1]!;
    expect((await typeform.forms.get({ uid: form.id })).id).toBe(form.id);
  });

  it('pages every response of a form with more than one 1000-response page (page=auto, before tokens)', async () => {
    const form = sim.data.forms[0]!;
    const expected = (sim.data.responses.get(form.id) ?? []).map((r) => r.response_id);
    expect(expected.length).toBe(1500);
    const first = await typeform.responses.list({ uid: form.id, pageSize: 10 });
    expect(first.items).toHaveLength(10);
    expect(first.total_items).toBe(1500);
    const all = await typeform.responses.list({ uid: form.id, page: 'auto' });
    const ids = all.items.map((r) => r.response_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(expected.sort());
  });

  it('lists workspaces, themes, images and a form’s webhooks', async () => {
    expect((await typeform.workspaces.list({ pageSize: 200 })).items?.length).toBe(sim.data.workspaces.length);
    expect((await typeform.themes.list({ pageSize: 200 })).items?.length).toBe(sim.data.themes.length);
    expect(await typeform.images.list()).toHaveLength(sim.data.images.length);
    const withHooks = sim.data.forms.find((f) => (sim.data.webhooks.get(f.id) ?? []).length > 0)!;
    const hooks = (await typeform.webhooks.list({ uid: withHooks.id })) as { items: unknown[] };
    expect(hooks.items).toHaveLength(sim.data.webhooks.get(withHooks.id)!.length);
  });

  it('answers an unknown form with the FORM_NOT_FOUND error the client raises as ApiError', async () => {
    const error = await typeform.forms.get({ uid: 'nope0000' }).catch((e: unknown) => e);
    // The client's ApiError (a class of its CommonJS bundle, so compared by shape, not instanceof).
    expect(error).toBeInstanceOf(Error);
    expect((error as ApiError).code).toBe('FORM_NOT_FOUND');
  });

  it('answers a wrong token with AUTHENTICATION_FAILED', async () => {
    const wrong = createClient({ token: 'tfp_wrong_token_0000000000000000', apiBaseUrl: sim.url });
    const error = await wrong.forms.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as ApiError).code).toBe('AUTHENTICATION_FAILED');
  });
});
