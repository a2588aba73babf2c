import { z } from 'zod';
import { type CursorBinding, type CursorKey, decodeCursor, encodeCursor } from '../cursor/cursor.ts';
import { isSearchQueryError } from '../errors.ts';
import { SqlQueryError } from './sql-error.ts';

/** Where the next page starts: after the search cursor (rows), after a group's key (groups), or at an offset. */
const CursorState = z.discriminatedUnion('k', [
  z.strictObject({ k: z.literal('rows'), search: z.string(), emitted: z.number().int().nonnegative() }),
  z.strictObject({
    k: z.literal('groups'),
    after: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
    emitted: z.number().int().nonnegative(),
  }),
  z.strictObject({ k: z.literal('offset'), offset: z.number().int().nonnegative() }),
]);
export type CursorState = z.infer<typeof CursorState>;

/**
 * SQL cursors are the search language's: opaque, HMAC-signed and bound to the connector and the query (its
 * parsed form, so spacing and case of keywords do not matter); they hold one value, the state as JSON.
 */
export function encodeSqlCursor(state: CursorState, binding: CursorBinding, key: CursorKey): string {
  return encodeCursor([JSON.stringify(state)], binding, key);
}

/** @throws SqlQueryError `invalid_cursor` when forged, altered, or from another query or connector. */
export function decodeSqlCursor(cursor: string, binding: CursorBinding, key: CursorKey): CursorState {
  let values: readonly unknown[];
  try {
    values = decodeCursor(cursor, binding, key, 1);
  } catch (error) {
    if (!isSearchQueryError(error)) throw error;
    throw new SqlQueryError('invalid_cursor', [
      { line: 1, column: 1, message: error.errors[0]?.message ?? 'invalid cursor' },
    ]);
  }
  try {
    return CursorState.parse(JSON.parse(String(values[0])));
  } catch {
    throw new SqlQueryError('invalid_cursor', [{ line: 1, column: 1, message: 'malformed cursor' }]);
  }
}
