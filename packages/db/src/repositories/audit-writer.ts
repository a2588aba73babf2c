import pg from 'pg';
import type { NewAuditEntry } from '../schema.ts';

/** audit_entries' columns as the writer sends them, with their Postgres types. */
export const AUDIT_ENTRY_COLUMNS = [
  ['at', 'timestamptz'],
  ['organization_id', 'text'],
  ['client_id', 'text'],
  ['connector_id', 'text'],
  ['source', 'text'],
  ['action', 'text'],
  ['entity', 'text'],
  ['params', 'jsonb'],
  ['idempotency_key', 'text'],
  ['status', 'integer'],
  ['error_code', 'text'],
  ['upstream_status', 'integer'],
  ['latency_ms', 'double precision'],
  ['request_id', 'text'],
] as const satisfies readonly (readonly [keyof NewAuditEntry, string])[];

const COLUMN_LIST = AUDIT_ENTRY_COLUMNS.map(([name]) => name).join(', ');

// One statement text for every batch size, so it is parsed and planned once per connection: the rows travel as one
// JSON array (`JSON.stringify` of the rows, `params` in it as the JSON text it already is) that `json_to_recordset`
// turns back into typed columns. Cheaper in the client and in Postgres than one array parameter per column through
// `unnest`, where pg encodes each element in JavaScript and Postgres parses 14 arrays (docs/trusted-calls.md, "What
// the trail costs"; docs/benchmarks/code-measurements.md). Rows are inserted in the order given, so their ids ascend
// in that order.
const entriesFromJson = (returning: string, where = '', json = '$1') =>
  `insert into audit_entries (${COLUMN_LIST})
    select coalesce(at, now()), ${AUDIT_ENTRY_COLUMNS.slice(1)
      .map(([name]) => (name === 'params' ? 'params::jsonb' : name))
      .join(', ')}
    from rows from (json_to_recordset(${json}::json) as (${AUDIT_ENTRY_COLUMNS.map(
      ([name, type]) => `${name} ${name === 'params' ? 'text' : type}`,
    ).join(', ')}))
      with ordinality as u(${COLUMN_LIST}, position)${where}
    order by position${returning}`;

const INSERT_ENTRIES = { name: 'audit_insert_entries', text: entriesFromJson(' returning id') };
const APPEND_ENTRIES = { name: 'audit_append_entries', text: entriesFromJson('') };

// A row alone (every call when calls do not overlap) as plain parameters: no arrays to encode and parse, no sort, no
// returned row, so less CPU in the client and in Postgres (bench:audit-writer, docs/benchmarks/code-measurements.md).
const entryValues = (returning: string) =>
  `insert into audit_entries (${COLUMN_LIST})
    values (coalesce($1::timestamptz, now()), ${AUDIT_ENTRY_COLUMNS.slice(1)
      .map(([, type], i) => `$${i + 2}::${type}`)
      .join(', ')})${returning}`;
const APPEND_ENTRY = { name: 'audit_append_entry', text: entryValues('') };
const INSERT_ENTRY = { name: 'audit_insert_entry', text: entryValues(' returning id') };

/**
 * The audit trail's writes, on one connection of their own (never waiting for a pooled one behind other queries),
 * with prepared statements whose text does not depend on the batch size. `settings` are the connection's session
 * settings (`{ synchronous_commit: 'on' }`). A connection that fails is replaced on the next write.
 */
export class AuditWriter {
  readonly #config: pg.ClientConfig;
  #client: Promise<pg.Client> | undefined;

  constructor(databaseUrl: string, settings: Readonly<Record<string, string>> = {}) {
    const options = Object.entries(settings)
      .map(([name, value]) => `-c ${name}=${value}`)
      .join(' ');
    this.#config = { connectionString: databaseUrl, ...(options ? { options } : {}) };
  }

  /** Inserts the entries in one statement; with `ids`, returns their ids in the order given, else none. */
  async insertEntries(rows: readonly NewAuditEntry[], ids: boolean): Promise<string[]> {
    if (rows.length === 0) return [];
    const [row] = rows;
    if (rows.length === 1 && row) {
      const statement = ids ? INSERT_ENTRY : APPEND_ENTRY;
      const result = await this.#query<{ id: string }>(
        statement.name,
        statement.text,
        AUDIT_ENTRY_COLUMNS.map(([name]) => row[name] ?? null),
      );
      return result.rows.map((r) => r.id);
    }
    // json_to_recordset reads a missing key as null and ignores keys that are not columns.
    const values = [JSON.stringify(rows)];
    if (!ids) {
      await this.#query(APPEND_ENTRIES.name, APPEND_ENTRIES.text, values);
      return [];
    }
    const result = await this.#query<{ id: string }>(INSERT_ENTRIES.name, INSERT_ENTRIES.text, values);
    return result.rows
      .map((r) => BigInt(r.id))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .map(String);
  }

  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    await (await client?.catch(() => undefined))?.end();
  }

  async #query<Row extends pg.QueryResultRow>(name: string, text: string, values: unknown[]) {
    const client = await this.#connected();
    return client.query<Row>({ name, text, values });
  }

  #connected(): Promise<pg.Client> {
    if (this.#client) return this.#client;
    const client = new pg.Client(this.#config);
    const forget = () => {
      if (this.#client === connecting) this.#client = undefined;
    };
    // A connection the server ends (restart, admin termination): the next write opens a new one.
    client.on('error', forget);
    client.on('end', forget);
    const connecting = client.connect().then(
      () => client,
      (error: unknown) => {
        forget();
        throw error;
      },
    );
    this.#client = connecting;
    return connecting;
  }
}
