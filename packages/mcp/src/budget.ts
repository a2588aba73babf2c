import { createHash } from 'node:crypto';

/**
 * Answers larger than the budget are cut between records, never inside one, and carry a cursor that continues
 * where the cut was made: the upstream page (or search page) is read again and the records already returned are
 * skipped. The cursor is bound to the request it continues (a hash of it), so it cannot be replayed on another.
 */
export const DEFAULT_BUDGET_CHARS = 24_000;

export interface Continuation {
  /** The API's own cursor of the page being cut (search), or null for the first page / live lists. */
  readonly page: string | null;
  /** Records of that page already returned. */
  readonly skip: number;
  /** Hash of the request, without its cursor. */
  readonly request: string;
}

export function requestHash(request: unknown): string {
  return createHash('sha256').update(JSON.stringify(request)).digest('base64url').slice(0, 16);
}

export function encodeContinuation(c: Continuation): string {
  return `mcp1.${Buffer.from(JSON.stringify([c.page, c.skip, c.request])).toString('base64url')}`;
}

/** The continuation, or a message saying why the cursor is not one of ours for this request. */
export function decodeContinuation(cursor: string, request: string): Continuation | string {
  if (!cursor.startsWith('mcp1.')) return 'not a cursor from a previous answer of this tool';
  try {
    const [page, skip, hash] = JSON.parse(Buffer.from(cursor.slice(5), 'base64url').toString('utf8')) as unknown[];
    if ((page !== null && typeof page !== 'string') || !Number.isInteger(skip) || typeof hash !== 'string') {
      return 'malformed cursor';
    }
    if (hash !== request) return 'this cursor belongs to another request: repeat the same arguments with it';
    return { page: page as string | null, skip: skip as number, request: hash };
  } catch {
    return 'malformed cursor';
  }
}

/** The longest prefix of `records` (at least one) whose JSON fits `budget` characters. */
export function fitRecords<T>(records: readonly T[], budget: number): T[] {
  const out: T[] = [];
  let used = 2;
  for (const record of records) {
    const size = JSON.stringify(record).length + 1;
    if (out.length > 0 && used + size > budget) break;
    out.push(record);
    used += size;
  }
  return out;
}

/** Characters a tool's description may take in tools/list (every tool is sent to the model on each turn). */
export const DESCRIPTION_BUDGET_CHARS = 2_000;

/**
 * `table(col, col, ...)` for each table, in at most `budget` characters: when all columns do not fit, each table
 * keeps an equal share of its first columns and says how many more there are (describe_connector lists them all).
 */
export function tablesWithinBudget(tables: readonly (readonly [string, readonly string[]])[], budget: number): string {
  const render = (keep: number) =>
    tables
      .map(([name, columns]) => {
        const shown = columns.slice(0, keep);
        const more = columns.length - shown.length;
        return `${name}(${shown.join(', ')}${more > 0 ? `, +${more} more` : ''})`;
      })
      .join('; ');
  const widest = Math.max(0, ...tables.map(([, c]) => c.length));
  for (let keep = widest; keep > 0; keep--) {
    const text = render(keep);
    if (text.length <= budget) return text;
  }
  return render(0).slice(0, budget);
}
