import type { ApiRuntime } from '@conduit/api';
import type { EntityCatalog } from '@conduit/connectors';
import { orbInvoicesRow } from './orb-connector.ts';

/**
 * An Orb connector written straight to the database whose `invoices` change the way every writer changes the copy
 * (a sync, a webhook's re-read, an execute write): the copy's versioned write without a refresh, then the change
 * feed's append of what it applied, which announces it to every API instance (docs/architecture.md).
 */
export interface InvoiceCopy {
  readonly connectorId: string;
  readonly entity: EntityCatalog;
  /** Writes these invoices (new or changed). */
  write(records: readonly Record<string, unknown>[]): Promise<void>;
  /** Removes these invoices. */
  remove(keys: readonly string[]): Promise<void>;
}

export async function invoiceCopy(deps: ApiRuntime['deps'], organizationId: string): Promise<InvoiceCopy> {
  const { connectorId, entity } = await orbInvoicesRow(deps, organizationId, 'answers');
  // Each write reads later than the one before (its version in the copy), as successive upstream reads do.
  let clock = Date.now();
  return {
    connectorId,
    entity,
    async write(records) {
      const written = await deps.copy.writeRecords('Orb', entity, connectorId, 'answers', records, {
        readAt: ++clock,
        refresh: false,
      });
      await deps.changeFeed.appendWritten(written);
    },
    async remove(keys) {
      const written = await deps.copy.writeRemovals('Orb', entity, connectorId, keys, {
        readAt: ++clock,
        refresh: false,
      });
      await deps.changeFeed.appendWritten(written);
    },
  };
}

export const STATUSES = ['draft', 'issued', 'paid', 'void'] as const;

/** An invoice of the tests' small world: a status, an amount with cents, a date in 2024, one of a few memos. */
export function invoice(id: string, random: () => number): Record<string, unknown> {
  const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;
  const cents = Math.floor(random() * 100_000);
  const day = 1 + Math.floor(random() * 360);
  return {
    id,
    status: pick(STATUSES),
    total: (cents / 100).toFixed(2),
    amount_due: (Math.floor(random() * 10_000) / 100).toFixed(2),
    invoice_date: new Date(Date.UTC(2024, 0, day)).toISOString(),
    created_at: new Date(Date.UTC(2023, 0, day)).toISOString(),
    memo: pick(['annual plan', 'usage overage', 'seats true-up', 'partner credit']),
  };
}

/** A seeded generator (mulberry32), so a failing run can be repeated. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
