import Orb from 'orb-billing';
import { beforeAll, describe, expect, it } from 'vitest';
import { simulatorForAll } from '../harness/simulator-for-all.ts';
import { startOrbSimulator } from '../simulators/orb/simulator.ts';

/** Orb's official TypeScript client (orb-billing) against our Orb simulator: the simulator must answer it as Orb does. */
describe('orb-billing (official client) against the Orb simulator', () => {
  const sim = simulatorForAll(() => startOrbSimulator({ customers: 7 }));
  let orb: Orb;
  beforeAll(() => {
    orb = new Orb({ apiKey: sim.apiKey, baseURL: sim.url, maxRetries: 0 });
  });

  it('lists every customer by following the cursor pages', async () => {
    const ids: string[] = [];
    for await (const customer of orb.customers.list({ limit: 3 })) ids.push(customer.id);
    expect(ids.sort()).toEqual(sim.data.customers.map((c) => c.id).sort());
    const first = await orb.customers.list({ limit: 3 });
    expect(first.data).toHaveLength(3);
    expect(first.hasNextPage()).toBe(true);
  });

  it('gets a customer, a plan, a subscription and an invoice by id', async () => {
    const customer = sim.data.customers[0]!;
    expect((await orb.customers.fetch(customer.id)).id).toBe(customer.id);
    expect((await orb.plans.fetch(sim.data.plans[0]!.id)).id).toBe(sim.data.plans[0]!.id);
    expect((await orb.subscriptions.fetch(sim.data.subscriptions[0]!.id)).id).toBe(sim.data.subscriptions[0]!.id);
    expect((await orb.invoices.fetch(sim.data.invoices[0]!.id)).id).toBe(sim.data.invoices[0]!.id);
  });

  it('filters invoices by status[] and invoice_date[gte] the way the client encodes them', async () => {
    const since = '2024-06-01T00:00:00Z';
    const paid: string[] = [];
    for await (const invoice of orb.invoices.list({ status: ['paid'], 'invoice_date[gte]': since, limit: 50 })) {
      expect(invoice.status).toBe('paid');
      expect(Date.parse(invoice.invoice_date)).toBeGreaterThanOrEqual(Date.parse(since));
      paid.push(invoice.id);
    }
    const expected = sim.data.invoices.filter(
      (i) => i.status === 'paid' && Date.parse(String(i.invoice_date)) >= Date.parse(since),
    );
    expect(paid.sort()).toEqual(expected.map((i) => i.id).sort());
  });

  it('answers an unknown id with the 404 the client turns into NotFoundError', async () => {
    const error = await orb.customers.fetch('no_such_customer').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Orb.NotFoundError);
  });

  it('answers a wrong key with the 401 the client turns into AuthenticationError', async () => {
    const wrong = new Orb({ apiKey: 'wrong-key', baseURL: sim.url, maxRetries: 0 });
    const error = await wrong.customers.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Orb.AuthenticationError);
  });

  it('answers a planted 429 with Retry-After, which the client waits out and retries', async () => {
    sim.faults.add({ status: 429, count: 1, retryAfterSeconds: 0 });
    const patient = new Orb({ apiKey: sim.apiKey, baseURL: sim.url, maxRetries: 2 });
    expect((await patient.plans.list()).data.length).toBeGreaterThan(0);
  });
});
