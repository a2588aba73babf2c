import { orbInvoice } from '../simulators/orb/invoice.ts';

/**
 * Orb-shaped invoices (built like the Orb simulator's, test/simulators/orb/invoice.ts), computed from their
 * position alone so a million of them never sit in memory and any process can rebuild record `i` or its id.
 */

const FROM_MS = Date.parse('2023-01-01T00:00:00Z');
const TO_MS = Date.parse('2025-06-30T00:00:00Z');
const STATUSES = ['draft', 'issued', 'paid', 'paid', 'void'] as const;
export const MEMOS = [
  'Thank you for your business',
  'Usage overage for API calls',
  'Annual prepaid commitment',
  'Net 30, wire transfer preferred',
  'Crédit appliqué : remise partenaire',
  'Enterprise seats true-up',
] as const;

/** murmur3's finalizer: a bijection on 32-bit integers, so distinct inputs give distinct ids. */
function fmix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function hex8(value: number): string {
  return value.toString(16).padStart(8, '0');
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function invoiceId(i: number): string {
  return `inv_${hex8(fmix32(i ^ 0x5bd1e995))}${hex8(fmix32(i + 0x9e3779b9))}`;
}

/** The instant of invoice `i` of `n`: spread evenly over 2023-01-01 .. 2025-06-30. */
export function invoiceInstant(i: number, n: number): number {
  return FROM_MS + Math.floor(((i + 0.5) * (TO_MS - FROM_MS)) / n);
}

export const INVOICE_SPAN = { fromMs: FROM_MS, toMs: TO_MS };

export function invoiceRecord(i: number, n: number): Record<string, unknown> {
  const random = mulberry32(fmix32(i + 17));
  const customerIndex = Math.floor(i / 2);
  const k = i % 2;
  const invoiceDate = invoiceInstant(i, n);
  const total = ((100 + Math.floor(random() * 899_900)) / 100).toFixed(2);
  const status = STATUSES[Math.floor(random() * STATUSES.length)]!;
  const customerId = `cus_${hex8(fmix32(customerIndex ^ 0x1b873593))}${hex8(fmix32(customerIndex + 7))}`;
  return orbInvoice({
    id: invoiceId(i),
    invoiceDate,
    total,
    status,
    memo: random() < 0.4 ? MEMOS[Math.floor(random() * MEMOS.length)]! : null,
    portalPath: `${customerIndex}-${k}`,
    invoiceNumber: `INV-${String(i).padStart(7, '0')}`,
    lineItem: { id: `li_${hex8(fmix32(i + 99))}`, quantity: 1 + Math.floor(random() * 1000) },
    subscriptionId: `sub_${hex8(fmix32(customerIndex ^ 0x2545f491))}${hex8(fmix32(customerIndex + 3))}`,
    customer: { id: customerId, external_customer_id: `ext-${customerIndex}` },
  });
}
