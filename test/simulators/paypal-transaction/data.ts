import { hexId, int, pick, seededRandom } from '../kit/random.ts';

export type PaypalRecord = Record<string, unknown>;

export interface PaypalTransaction {
  /** Not sent: whether the transaction moves the balance (balance_affecting_records_only=Y keeps only these). */
  balance_affecting: boolean;
  transaction_info: Record<string, unknown> & { transaction_id: string; transaction_updated_date: string };
  payer_info: Record<string, unknown>;
  shipping_info: Record<string, unknown>;
  cart_info: Record<string, unknown>;
  store_info: Record<string, unknown>;
  auction_info: Record<string, unknown>;
  incentive_info: Record<string, unknown>;
}

export interface PaypalData {
  /** The day the data is anchored on (UTC midnight): every date lies before it. */
  readonly anchor: number;
  accountId: string;
  balances: PaypalRecord[];
  transactions: PaypalTransaction[];
  payments: (PaypalRecord & { id: string; create_time: string; update_time: string })[];
  disputes: (PaypalRecord & { dispute_id: string; update_time: string })[];
  products: (PaypalRecord & { id: string; create_time: string })[];
  invoices: (PaypalRecord & { id: string; detail: { metadata: { create_time: string } } })[];
}

export interface PaypalDataOptions {
  seed?: number;
  /** Transactions are size × 10; payments, disputes, products and invoices scale with it. */
  size?: number;
  /** Every date lies within this many days before the anchor (default 700). */
  spanDays?: number;
}

const DAY = 86_400_000;
const CURRENCIES = ['USD', 'EUR', 'GBP'];
const GIVEN = ['Ada', 'Grace', 'Alan', 'Barbara', 'Edsger', 'Frances'];
const SURNAMES = ['Lovelace', 'Hopper', 'Turing', 'Liskov', 'Dijkstra', 'Allen'];

/** PayPal's own offset form: `2024-02-10T00:01:56+0000`. */
export function paypalTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+0000');
}

const isoZ = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const money = (random: () => number, currency: string, max = 50000) => ({
  currency_code: currency,
  value: (int(random, 100, max) / 100).toFixed(2),
});

/** Deterministic PayPal-shaped data anchored on today's UTC midnight (start_date bounds are relative to now). */
export function generatePaypalData(options: PaypalDataOptions = {}): PaypalData {
  const random = seededRandom(options.seed ?? 11);
  const size = options.size ?? 30;
  const anchor = Math.floor(Date.now() / DAY) * DAY;
  const span = (options.spanDays ?? 700) * DAY;
  // Seconds-rounded instants, at least an hour before the anchor (so before now, too).
  const when = () => Math.floor((anchor - DAY / 24 - random() * span) / 1000) * 1000;
  const accountId = `ACC${hexId(random, 10).toUpperCase()}`;

  const transactions: PaypalTransaction[] = Array.from({ length: size * 10 }, (_, i) => {
    const initiated = when();
    const updated = Math.min(initiated + int(random, 0, 48) * 3_600_000, anchor - 60_000);
    const currency = pick(random, CURRENCIES);
    const amount = money(random, currency);
    const payer = { given_name: pick(random, GIVEN), surname: pick(random, SURNAMES) };
    return {
      balance_affecting: random() < 0.85,
      transaction_info: {
        paypal_account_id: accountId,
        transaction_id: `${hexId(random, 17).toUpperCase()}`,
        paypal_reference_id: random() < 0.3 ? hexId(random, 17).toUpperCase() : undefined,
        paypal_reference_id_type: 'TXN',
        transaction_event_code: pick(random, ['T0006', 'T0007', 'T1107', 'T0400']),
        transaction_initiation_date: paypalTime(initiated),
        transaction_updated_date: paypalTime(updated),
        transaction_amount: amount,
        fee_amount: { currency_code: currency, value: `-${(Number(amount.value) * 0.029).toFixed(2)}` },
        transaction_status: pick(random, ['S', 'S', 'S', 'P', 'D', 'V']),
        transaction_subject: `Order ${1000 + i}`,
        invoice_id: `INV-${1000 + i}`,
        custom_field: null,
        protection_eligibility: pick(random, ['01', '02']),
      },
      payer_info: {
        account_id: hexId(random, 13).toUpperCase(),
        email_address: `${payer.given_name.toLowerCase()}@example.com`,
        address_status: 'Y',
        payer_status: 'Y',
        payer_name: { ...payer, alternate_full_name: `${payer.given_name} ${payer.surname}` },
        country_code: pick(random, ['US', 'FR', 'DE']),
      },
      shipping_info: {
        name: `${payer.given_name} ${payer.surname}`,
        address: { line1: `${int(random, 1, 99)} Main St`, city: 'Austin', country_code: 'US', postal_code: '78701' },
      },
      cart_info: {
        item_details: [
          {
            item_code: `SKU-${int(random, 1, 50)}`,
            item_name: 'Widget',
            item_quantity: String(int(random, 1, 4)),
            item_unit_price: amount,
            item_amount: amount,
            total_item_amount: amount,
            tax_amounts: [],
          },
        ],
        tax_inclusive: false,
        paypal_invoice_id: `INV2-${hexId(random, 16).toUpperCase()}`,
      },
      store_info: {},
      auction_info: {},
      incentive_info: {},
    };
  });

  const payments = Array.from({ length: size * 2 }, () => {
    const created = when();
    const currency = pick(random, CURRENCIES);
    return {
      id: `PAYID-${hexId(random, 24).toUpperCase()}`,
      intent: 'sale',
      state: pick(random, ['approved', 'created', 'failed']),
      cart: hexId(random, 17).toUpperCase(),
      create_time: isoZ(created),
      update_time: isoZ(Math.min(created + int(random, 0, 3600) * 1000, anchor - 60_000)),
      payer: { payment_method: 'paypal', status: 'VERIFIED' },
      transactions: [{ amount: { total: money(random, currency).value, currency } }],
      links: [],
    };
  });

  const disputes = Array.from({ length: size }, (_, i) => {
    // Updated within the last 300 days: some are older than the 180 days update_time_after can reach.
    const updated = Math.floor((anchor - DAY / 24 - random() * 300 * DAY) / 1000) * 1000;
    return {
      dispute_id: `PP-D-${10000 + i}`,
      create_time: new Date(updated - int(random, 1, 20) * DAY).toISOString(),
      update_time: new Date(updated).toISOString(),
      status: pick(random, ['OPEN', 'WAITING_FOR_SELLER_RESPONSE', 'RESOLVED', 'UNDER_REVIEW']),
      reason: pick(random, ['MERCHANDISE_OR_SERVICE_NOT_RECEIVED', 'UNAUTHORISED', 'CREDIT_NOT_PROCESSED']),
      dispute_state: pick(random, ['REQUIRED_ACTION', 'UNDER_PAYPAL_REVIEW', 'RESOLVED']),
      dispute_life_cycle_stage: pick(random, ['INQUIRY', 'CHARGEBACK']),
      dispute_channel: pick(random, ['INTERNAL', 'EXTERNAL']),
      outcome: null,
      dispute_amount: money(random, 'USD'),
      disputed_transactions: [{ seller_transaction_id: hexId(random, 17).toUpperCase() }],
      links: [{ href: `https://api-m.paypal.com/v1/customer/disputes/PP-D-${10000 + i}`, rel: 'self', method: 'GET' }],
    };
  });

  const products = Array.from({ length: Math.max(3, Math.ceil(size * 1.5)) }, (_, i) => {
    const created = when();
    const id = `PROD-${hexId(random, 17).toUpperCase()}`;
    return {
      id,
      name: `${pick(random, ['Video', 'Music', 'Cloud', 'Coffee'])} Plan ${i + 1}`,
      description: `Product number ${i + 1}`,
      type: pick(random, ['SERVICE', 'DIGITAL', 'PHYSICAL']),
      category: pick(random, ['SOFTWARE', 'MEDIA', 'FOOD_RETAIL_AND_SERVICE']),
      image_url: `https://example.com/products/${i + 1}.png`,
      home_url: `https://example.com/products/${i + 1}`,
      create_time: isoZ(created),
      update_time: isoZ(Math.min(created + DAY, anchor - 60_000)),
      links: [{ href: `https://api-m.paypal.com/v1/catalogs/products/${id}`, rel: 'self', method: 'GET' }],
    };
  });

  const invoices = Array.from({ length: size * 2 }, (_, i) => {
    const created = when();
    const total = money(random, 'USD');
    return {
      id: `INV2-${hexId(random, 16).toUpperCase()}`,
      status: pick(random, ['DRAFT', 'SENT', 'PAID', 'CANCELLED']),
      detail: {
        invoice_number: String(1000 + i),
        currency_code: 'USD',
        metadata: { create_time: isoZ(created), last_update_time: isoZ(Math.min(created + DAY, anchor - 60_000)) },
      },
      invoicer: { email_address: 'merchant@example.com' },
      primary_recipients: [{ billing_info: { email_address: `buyer${i}@example.com` } }],
      additional_recipients: random() < 0.3 ? [`cc${i}@example.com`] : [],
      items: [{ name: 'Consulting', quantity: '1', unit_amount: total }],
      amount: { currency_code: 'USD', value: total.value },
      due_amount: total,
      gratuity: { currency_code: 'USD', value: '0.00' },
      configuration: { allow_tip: false, tax_inclusive: false },
      payments: { paid_amount: { currency_code: 'USD', value: '0.00' }, transactions: [] },
      refunds: { refund_amount: { currency_code: 'USD', value: '0.00' } },
      links: [],
    };
  });

  const balances = CURRENCIES.slice(0, 2).map((currency, i) => {
    const total = money(random, currency, 10_000_000);
    return {
      currency,
      primary: i === 0,
      total_balance: total,
      available_balance: total,
      withheld_balance: { currency_code: currency, value: '0.00' },
    };
  });

  return { anchor, accountId, balances, transactions, payments, disputes, products, invoices };
}
