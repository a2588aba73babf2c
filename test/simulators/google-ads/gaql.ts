/**
 * Just enough of the Google Ads Query Language for the simulator
 * (https://developers.google.com/google-ads/api/docs/query/grammar):
 * `SELECT f1, f2 FROM resource [WHERE cond AND cond ...] [ORDER BY f [ASC|DESC], ...] [LIMIT n]`, where a condition
 * is `field BETWEEN 'a' AND 'b'`, `field (=|!=|>|>=|<|<=) value` or `field IN (v1, v2)`.
 */
export interface Condition {
  readonly field: string;
  readonly op: 'BETWEEN' | '=' | '!=' | '>' | '>=' | '<' | '<=' | 'IN';
  readonly values: readonly string[];
}

export interface GaqlQuery {
  readonly fields: readonly string[];
  readonly resource: string;
  readonly conditions: readonly Condition[];
  readonly orderBy: readonly { field: string; desc: boolean }[];
  readonly limit: number | null;
}

/** A query the upstream refuses: `code` is the QueryError enum value of the Google Ads API. */
export class GaqlError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

const FIELD = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;
const VALUE = String.raw`'[^']*'|"[^"]*"|-?\d+(?:\.\d+)?|[A-Z_]+`;
const CONDITION = new RegExp(
  String.raw`^\s*([a-z][a-z0-9_.]*)\s+(?:(BETWEEN)\s+(${VALUE})\s+AND\s+(${VALUE})|(!=|>=|<=|=|>|<)\s*(${VALUE})|(IN)\s*\(([^)]*)\))`,
  'i',
);

function unquote(value: string): string {
  return /^['"].*['"]$/.test(value) ? value.slice(1, -1) : value;
}

export function parseGaql(query: string): GaqlQuery {
  const match =
    /^\s*SELECT\s+(.+?)\s+FROM\s+([a-z_]+)(?:\s+WHERE\s+(.+?))?(?:\s+ORDER\s+BY\s+(.+?))?(?:\s+LIMIT\s+(\d+))?\s*$/is.exec(
      query,
    );
  if (!match) throw new GaqlError('UNEXPECTED_END_OF_QUERY', `Error in query: cannot parse '${query.slice(0, 80)}'`);
  const fields = match[1]!.split(',').map((f) => f.trim());
  for (const field of fields) {
    if (!FIELD.test(field)) throw new GaqlError('INVALID_ARGUMENT', `Unrecognized field in the query: '${field}'.`);
  }
  const conditions: Condition[] = [];
  let rest = match[3] ?? '';
  while (rest.trim() !== '') {
    const found = CONDITION.exec(rest);
    if (!found) throw new GaqlError('UNEXPECTED_INPUT', `Error in WHERE clause near '${rest.trim().slice(0, 40)}'.`);
    const field = found[1]!;
    if (found[2]) conditions.push({ field, op: 'BETWEEN', values: [unquote(found[3]!), unquote(found[4]!)] });
    else if (found[5]) conditions.push({ field, op: found[5] as Condition['op'], values: [unquote(found[6]!)] });
    else {
      const values = found[8]!.split(',').map((v) => unquote(v.trim()));
      conditions.push({ field, op: 'IN', values });
    }
    rest = rest.slice(found[0].length);
    const and = /^\s+AND\s+/i.exec(rest);
    if (and) rest = rest.slice(and[0].length);
    else if (rest.trim() !== '')
      throw new GaqlError('UNEXPECTED_INPUT', `Expected AND near '${rest.trim().slice(0, 40)}'.`);
  }
  const orderBy = (match[4] ?? '')
    .split(',')
    .filter((s) => s.trim() !== '')
    .map((part) => {
      const [field = '', direction = 'ASC'] = part.trim().split(/\s+/);
      return { field, desc: direction.toUpperCase() === 'DESC' };
    });
  return { fields, resource: match[2]!.toLowerCase(), conditions, orderBy, limit: match[5] ? Number(match[5]) : null };
}

/** `campaign_budget.amount_micros` → `['campaignBudget', 'amountMicros']` (the REST JSON names). */
export function camelPath(field: string): string[] {
  return field.split('.').map((part) => part.replace(/_([a-z0-9])/g, (_, ch: string) => ch.toUpperCase()));
}

export function valueAt(row: Record<string, unknown>, field: string): unknown {
  let current: unknown = row;
  for (const key of camelPath(field)) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** Compares as numbers when both sides are numeric (int64 values travel as strings), else as strings. */
export function compare(a: unknown, b: string): number {
  const x = typeof a === 'number' || typeof a === 'string' ? String(a) : JSON.stringify(a ?? null);
  if (x !== '' && b !== '' && Number.isFinite(Number(x)) && Number.isFinite(Number(b))) return Number(x) - Number(b);
  return x < b ? -1 : x > b ? 1 : 0;
}

export function satisfies(value: unknown, condition: Condition): boolean {
  const [first = '', second = ''] = condition.values;
  switch (condition.op) {
    case 'BETWEEN':
      return compare(value, first) >= 0 && compare(value, second) <= 0;
    case '=':
      return compare(value, first) === 0;
    case '!=':
      return compare(value, first) !== 0;
    case '>':
      return compare(value, first) > 0;
    case '>=':
      return compare(value, first) >= 0;
    case '<':
      return compare(value, first) < 0;
    case '<=':
      return compare(value, first) <= 0;
    case 'IN':
      return condition.values.some((v) => compare(value, v) === 0);
  }
}

/** The selected fields only, in the REST JSON shape; every selected resource also carries its resourceName. */
export function project(row: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const value = valueAt(row, field);
    if (value === undefined) continue;
    const path = camelPath(field);
    let target = out;
    for (const key of path.slice(0, -1)) {
      target[key] ??= {};
      target = target[key] as Record<string, unknown>;
    }
    target[path.at(-1)!] = value;
  }
  for (const [key, value] of Object.entries(out)) {
    if (key === 'metrics' || key === 'segments') continue;
    const resourceName = (row[key] as { resourceName?: unknown } | undefined)?.resourceName;
    if (typeof value === 'object' && value !== null && typeof resourceName === 'string') {
      out[key] = { resourceName, ...(value as Record<string, unknown>) };
    }
  }
  return out;
}
