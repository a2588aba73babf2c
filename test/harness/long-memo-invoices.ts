import type { ApiRuntime } from '@conduit/api';
import { invoiceRecord } from '../bench/invoice-records.ts';
import { orbInvoicesRow } from './orb-connector.ts';

const LETTERS = 'abcdefghijklmnopqrstuvwxyz ';

/** A memo of `chars` pseudo-random letters and spaces, the same for the same `i`. */
function longMemo(i: number, chars: number): string {
  let seed = i + 1;
  let memo = '';
  for (let k = 0; k < chars; k++) {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    memo += LETTERS[seed % LETTERS.length];
  }
  return memo;
}

/**
 * Within the search cost budget (one `like` the 3-gram index cannot narrow, 16 wildcards: 82 units), so costly
 * for the transport, and slow on long memos: the engine checks every character of every memo of the connector.
 */
export const SCANNING_LIKE = { like: { memo: '%q%z%x%j%q%z%x%j%q%z%x%j%q%z%x%' } };

/**
 * An Orb connector of `organizationId`, written straight to the database, whose `invoices` index holds `docs`
 * invoices with memos of `memoChars` characters. Returns its id.
 */
export async function longMemoConnector(
  deps: ApiRuntime['deps'],
  organizationId: string,
  docs: number,
  memoChars: number,
): Promise<string> {
  const { connectorId, entity } = await orbInvoicesRow(deps, organizationId, 'long memos');
  for (let from = 0; from < docs; from += 500) {
    const records = Array.from({ length: Math.min(500, docs - from) }, (_, k) => ({
      ...invoiceRecord(from + k, docs),
      memo: longMemo(from + k, memoChars),
    }));
    await deps.copy.writeRecords('Orb', entity, connectorId, 'load', records, { readAt: Date.now() });
  }
  await deps.indexes.refresh('Orb', 'invoices');
  return connectorId;
}
