import { hexId, instantBetween, int, pick, seededRandom } from '../kit/random.ts';

export type OrbRecord = Record<string, unknown> & { id: string; created_at: string };

export interface OrbData {
  customers: OrbRecord[];
  subscriptions: OrbRecord[];
  plans: OrbRecord[];
  invoices: OrbRecord[];
}

export interface OrbDataOptions {
  seed?: number;
  /** Customers; subscriptions and invoices scale with it. */
  customers?: number;
  plans?: number;
  /** Subscriptions per customer (each with two invoices); 0 for customer-only data sets. */
  subscriptionsPerCustomer?: number;
  from?: string;
  to?: string;
}

const NAMES = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Stark', 'Wayne', 'Wonka', 'Tyrell', 'Cyberdyne'];
const TIMEZONES = ['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Tokyo'];

function iso(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', '+00:00');
}

/** Deterministic Orb-shaped data (https://docs.withorb.com/api-reference): the same options give the same records. */
export function generateOrbData(options: OrbDataOptions = {}): OrbData {
  const random = seededRandom(options.seed ?? 1);
  const from = options.from ?? '2023-01-01T00:00:00Z';
  const to = options.to ?? '2025-06-30T00:00:00Z';
  const plans: OrbRecord[] = Array.from({ length: options.plans ?? 5 }, (_, i) => ({
    id: `plan_${hexId(random, 16)}`,
    created_at: iso(instantBetween(random, from, to)),
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
      created_at: iso(created),
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
      created_at: iso(subscriptionCreated),
      start_date: iso(subscriptionCreated),
      end_date: random() < 0.2 ? iso(subscriptionCreated + 90 * 86_400_000) : null,
      status: pick(random, ['active', 'active', 'ended', 'upcoming']),
      current_billing_period_start_date: iso(subscriptionCreated),
      current_billing_period_end_date: iso(subscriptionCreated + 30 * 86_400_000),
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
      invoices.push({
        id: `inv_${hexId(random, 16)}`,
        created_at: iso(invoiceDate),
        invoice_date: iso(invoiceDate),
        due_date: iso(invoiceDate + 30 * 86_400_000),
        invoice_pdf: null,
        subtotal: total,
        total,
        amount_due: status === 'paid' ? '0.00' : total,
        status,
        memo: random() < 0.3 ? 'Thank you for your business' : null,
        issue_failed_at: null,
        sync_failed_at: null,
        payment_failed_at: null,
        payment_started_at: null,
        voided_at: status === 'void' ? iso(invoiceDate + 86_400_000) : null,
        paid_at: status === 'paid' ? iso(invoiceDate + 2 * 86_400_000) : null,
        issued_at: status === 'draft' ? null : iso(invoiceDate),
        hosted_invoice_url: `https://portal.example/invoices/${i}-${k}`,
        currency: 'USD',
        eligible_to_issue_at: null,
        invoice_number: `INV-${String(i * 2 + k).padStart(6, '0')}`,
        line_items: [
          { id: `li_${hexId(random, 8)}`, name: 'API calls', quantity: int(random, 1, 1000), amount: total },
        ],
        credit_notes: [],
        customer_balance_transactions: [],
        subscription: { id: subscription.id },
        customer: { id: customer.id, external_customer_id: customer.external_customer_id },
        discount: null,
        minimum: null,
        maximum: null,
        auto_collection: { enabled: true, next_attempt_at: null, num_attempts: 0 },
        metadata: {},
        billing_address: null,
        shipping_address: null,
        will_auto_issue: false,
      });
    }
  }
  return { customers, subscriptions, plans, invoices };
}
