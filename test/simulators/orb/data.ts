import { hexId, instantBetween, int, pick, type SeededDataOptions, seededRandom } from '../kit/random.ts';
import { orbInvoice, orbTime } from './invoice.ts';

export type OrbRecord = Record<string, unknown> & { id: string; created_at: string };

export interface OrbData {
  customers: OrbRecord[];
  subscriptions: OrbRecord[];
  plans: OrbRecord[];
  invoices: OrbRecord[];
}

export interface OrbDataOptions extends SeededDataOptions {
  /** Customers; subscriptions and invoices scale with it. */
  customers?: number;
  plans?: number;
  /** Subscriptions per customer (each with two invoices); 0 for customer-only data sets. */
  subscriptionsPerCustomer?: number;
}

const NAMES = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Stark', 'Wayne', 'Wonka', 'Tyrell', 'Cyberdyne'];
const TIMEZONES = ['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Tokyo'];

/** Deterministic Orb-shaped data (https://docs.withorb.com/api-reference): the same options give the same records. */
export function generateOrbData(options: OrbDataOptions = {}): OrbData {
  const random = seededRandom(options.seed ?? 1);
  const from = options.from ?? '2023-01-01T00:00:00Z';
  const to = options.to ?? '2025-06-30T00:00:00Z';
  const plans: OrbRecord[] = Array.from({ length: options.plans ?? 5 }, (_, i) => ({
    id: `plan_${hexId(random, 16)}`,
    created_at: orbTime(instantBetween(random, from, to)),
    name: `${pick(random, ['Starter', 'Growth', 'Scale', 'Enterprise'])} ${i + 1}`,
    description: `Plan number ${i + 1}`,
    status: 'active',
    default_invoice_memo: null,
    currency: 'USD',
    invoicing_currency: 'USD',
    external_plan_id: `ext-plan-${i + 1}`,
    net_terms: 30,
    prices: [
      { id: `price_${hexId(random, 8)}`, model_type: 'unit', unit_config: { unit_amount: String(int(random, 1, 99)) } },
    ],
    plan_phases: null,
    product: { id: `prod_${hexId(random, 8)}`, name: 'API calls' },
    minimum: null,
    maximum: null,
    discount: null,
    trial_config: { trial_period: null, trial_period_unit: 'days' },
    metadata: {},
  }));
  const customers: OrbRecord[] = [];
  const subscriptions: OrbRecord[] = [];
  const invoices: OrbRecord[] = [];
  for (let i = 0; i < (options.customers ?? 40); i++) {
    const company = `${pick(random, NAMES)} ${i}`;
    const created = instantBetween(random, from, to);
    const customer: OrbRecord = {
      id: `cus_${hexId(random, 16)}`,
      external_customer_id: `ext-${i}`,
      name: company,
      email: `billing+${i}@${company.split(' ')[0]!.toLowerCase()}.example`,
      created_at: orbTime(created),
      payment_provider: pick(random, ['stripe_charge', 'stripe_invoice', null]),
      payment_provider_id: random() < 0.5 ? `pp_${hexId(random, 10)}` : null,
      timezone: pick(random, TIMEZONES),
      balance: (int(random, 0, 50000) / 100).toFixed(2),
      currency: 'USD',
      shipping_address: null,
      billing_address: {
        city: pick(random, ['Paris', 'Berlin', 'Austin']),
        country: pick(random, ['FR', 'DE', 'US']),
        line1: `${i} Main St`,
      },
      tax_id: null,
      auto_collection: random() < 0.7,
      metadata: { segment: pick(random, ['smb', 'mid', 'ent']) },
    };
    customers.push(customer);
    if ((options.subscriptionsPerCustomer ?? 1) === 0) continue;
    const plan = pick(random, plans);
    const subscriptionCreated = Math.min(created + int(random, 0, 30) * 86_400_000, Date.parse(to));
    const subscription: OrbRecord = {
      id: `sub_${hexId(random, 16)}`,
      created_at: orbTime(subscriptionCreated),
      start_date: orbTime(subscriptionCreated),
      end_date: random() < 0.2 ? orbTime(subscriptionCreated + 90 * 86_400_000) : null,
      status: pick(random, ['active', 'active', 'ended', 'upcoming']),
      current_billing_period_start_date: orbTime(subscriptionCreated),
      current_billing_period_end_date: orbTime(subscriptionCreated + 30 * 86_400_000),
      default_invoice_memo: null,
      invoicing_threshold: null,
      customer: { id: customer.id, external_customer_id: customer.external_customer_id },
      plan: { id: plan.id, name: plan.name },
      redeemed_coupon: null,
      metadata: {},
      active_plan_phase_order: null,
      net_terms: 30,
      fixed_fee_quantity_schedule: [],
      price_intervals: [],
      auto_collection: null,
    };
    subscriptions.push(subscription);
    for (let k = 0; k < 2; k++) {
      const invoiceDate = subscriptionCreated + (k + 1) * 30 * 86_400_000;
      const total = (int(random, 100, 900000) / 100).toFixed(2);
      const status = pick(random, ['draft', 'issued', 'paid', 'paid', 'void']);
      invoices.push(
        orbInvoice({
          id: `inv_${hexId(random, 16)}`,
          invoiceDate,
          total,
          status,
          memo: random() < 0.3 ? 'Thank you for your business' : null,
          portalPath: `${i}-${k}`,
          invoiceNumber: `INV-${String(i * 2 + k).padStart(6, '0')}`,
          lineItem: { id: `li_${hexId(random, 8)}`, quantity: int(random, 1, 1000) },
          subscriptionId: subscription.id,
          customer: { id: customer.id, external_customer_id: String(customer.external_customer_id) },
        }),
      );
    }
  }
  return { customers, subscriptions, plans, invoices };
}
