const DAY_MS = 86_400_000;

/** An instant as Orb writes it: ISO 8601 in UTC, whole seconds, `+00:00`. */
export function orbTime(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', '+00:00');
}

/** What sets one invoice apart; everything else is what Orb sends for an unremarkable invoice. */
export interface InvoiceFields {
  readonly id: string;
  /** The invoice date (epoch ms); due 30 days later, voided a day and paid two days after it. */
  readonly invoiceDate: number;
  readonly total: string;
  readonly status: string;
  readonly memo: string | null;
  /** The last segment of the hosted invoice URL. */
  readonly portalPath: string;
  readonly invoiceNumber: string;
  readonly lineItem: { readonly id: string; readonly quantity: number };
  readonly subscriptionId: string;
  readonly customer: { readonly id: string; readonly external_customer_id: string };
}

/** An invoice in the shape of Orb's API (https://docs.withorb.com/api-reference/invoice/fetch-invoice). */
export function orbInvoice(fields: InvoiceFields): Record<string, unknown> & { id: string; created_at: string } {
  const { invoiceDate, total, status } = fields;
  return {
    id: fields.id,
    created_at: orbTime(invoiceDate),
    invoice_date: orbTime(invoiceDate),
    due_date: orbTime(invoiceDate + 30 * DAY_MS),
    invoice_pdf: null,
    subtotal: total,
    total,
    amount_due: status === 'paid' ? '0.00' : total,
    status,
    memo: fields.memo,
    issue_failed_at: null,
    sync_failed_at: null,
    payment_failed_at: null,
    payment_started_at: null,
    voided_at: status === 'void' ? orbTime(invoiceDate + DAY_MS) : null,
    paid_at: status === 'paid' ? orbTime(invoiceDate + 2 * DAY_MS) : null,
    issued_at: status === 'draft' ? null : orbTime(invoiceDate),
    hosted_invoice_url: `https://portal.example/invoices/${fields.portalPath}`,
    currency: 'USD',
    eligible_to_issue_at: null,
    invoice_number: fields.invoiceNumber,
    line_items: [{ id: fields.lineItem.id, name: 'API calls', quantity: fields.lineItem.quantity, amount: total }],
    credit_notes: [],
    customer_balance_transactions: [],
    subscription: { id: fields.subscriptionId },
    customer: { id: fields.customer.id, external_customer_id: fields.customer.external_customer_id },
    discount: null,
    minimum: null,
    maximum: null,
    auto_collection: { enabled: true, next_attempt_at: null, num_attempts: 0 },
    metadata: {},
    billing_address: null,
    shipping_address: null,
    will_auto_issue: false,
  };
}
