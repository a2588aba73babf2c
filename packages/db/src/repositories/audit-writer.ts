import pg from 'pg';
import type { NewAuditEntry } from '../schema.ts';

/** The outcome of a call whose entry (its intent) is `entryId`. */
export interface NewAuditOutcome {
  readonly entryId: string;
  readonly status: number;
  readonly errorCode: string | null;
  readonly upstreamStatus: number | null;
  readonly latencyMs: number;
}

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

// A spool's batch (AUDIT_COMMIT=spool) in one statement, so one round trip and atomic without a transaction: the
// offset moves from $2 to $3 only if it is still $2 (the UPDATE locks the row; a concurrent shipper that moved it
// first makes it match nothing), and the entries are inserted only if it moved. Exactly once, whoever ships.
const SHIP_SPOOL = {
  name: 'audit_ship_spool',
  text: `with moved as (
      update audit_spool_offsets set shipped = $3, updated_at = now() where spool = $1 and shipped = $2 returning 1
    ), inserted as (
      ${entriesFromJson('', '\n    where exists (select from moved)', '$4')}
    )
    select count(*)::int as moved from moved`,
};
const SPOOL_OFFSET = { name: 'audit_spool_offset', text: 'select shipped from audit_spool_offsets where spool = $1' };

const INSERT_OUTCOMES = {
  name: 'audit_insert_outcomes',
  text: `insert into audit_outcomes (entry_id, status, error_code, upstream_status, latency_ms)
    select * from unnest($1::bigint[], $2::integer[], $3::text[], $4::integer[], $5::double precision[])`,
};
// An outcome alone: the row on the answer's path of a call without company (AuditLog's `alone`), so the cheapest.
const INSERT_OUTCOME = {
  name: 'audit_insert_outcome',
  text: `insert into audit_outcomes (entry_id, status, error_code, upstream_status, latency_ms)
    values ($1::bigint, $2::integer, $3::text, $4::integer, $5::double precision)`,
};

/**
 * The audit trail's writes, on one connection of their own (never waiting for a pooled one behind other queries),
 * with prepared statements whose text does not depend on the batch size. `settings` are the connection's session
 * settings (`{ synchronous_commit: 'off' }`). A connection that fails is replaced on the next write.
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

  /** Inserts the outcomes in one statement. */
  async insertOutcomes(rows: readonly NewAuditOutcome[]): Promise<void> {
    if (rows.length === 0) return;
    const [row] = rows;
    if (rows.length === 1 && row) {
      await this.#query(INSERT_OUTCOME.name, INSERT_OUTCOME.text, [
        row.entryId,
        row.status,
        row.errorCode,
        row.upstreamStatus,
        row.latencyMs,
      ]);
      return;
    }
    await this.#query(INSERT_OUTCOMES.name, INSERT_OUTCOMES.text, [
      rows.map((r) => r.entryId),
      rows.map((r) => r.status),
      rows.map((r) => r.errorCode),
      rows.map((r) => r.upstreamStatus),
      rows.map((r) => r.latencyMs),
    ]);
  }

  /** Starts a spool's offset at 0 (before its file gets a line); a spool already known keeps its offset. */
  async createSpool(spool: string): Promise<void> {
    await this.#query(
      'audit_create_spool',
      'insert into audit_spool_offsets (spool) values ($1) on conflict (spool) do nothing',
      [spool],
    );
  }

  /** The byte offset up to which a spool is shipped; undefined for a spool the table does not know. */
  async spoolOffset(spool: string): Promise<number | undefined> {
    const result = await this.#query<{ shipped: string }>(SPOOL_OFFSET.name, SPOOL_OFFSET.text, [spool]);
    const row = result.rows[0];
    return row === undefined ? undefined : Number(row.shipped);
  }

  /**
   * Inserts a spool's entries (`lines`: NDJSON lines of NewAuditEntry, `params` as JSON text) and moves its offset
   * from `from` to `to`, atomically, only if it is still at `from`. False: another shipper moved it first (or an
   * earlier attempt whose answer was lost committed): nothing was inserted; read spoolOffset and plan again.
   */
  async shipSpool(spool: string, from: number, to: number, lines: readonly string[]): Promise<boolean> {
    const result = await this.#query<{ moved: number }>(SHIP_SPOOL.name, SHIP_SPOOL.text, [
      spool,
      from,
      to,
      `[${lines.join(',')}]`,
    ]);
    return result.rows[0]?.moved === 1;
  }

  /** Forgets a spool whose file is gone (fully shipped, then removed). */
  async removeSpool(spool: string): Promise<void> {
    await this.#query('audit_remove_spool', 'delete from audit_spool_offsets where spool = $1', [spool]);
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
