import type { NewAuditEntry, NewAuditOutcome } from '@conduit/db';

/** Who made a call and what it asks for: known before the call runs. `params` must already be redacted. */
export interface AuditIntent {
  readonly organizationId: string;
  readonly clientId?: string | null;
  readonly connectorId?: string | null;
  /** `api` (the HTTP API) or `mcp` (a tool call through POST /mcp). */
  readonly source: 'api' | 'mcp';
  /** What was done: `execute.create`, `connector.delete`, `webhook_endpoint.update`, `mcp.tool_call`, ... */
  readonly action: string;
  readonly entity?: string | null;
  readonly params?: unknown;
  readonly idempotencyKey?: string | null;
  readonly requestId?: string | null;
  /** When it happened; default now (the database's clock). */
  readonly at?: Date;
}

/** How a call ended. */
export interface AuditOutcome {
  /** The HTTP status of the answer. */
  readonly status: number;
  readonly errorCode?: string | null;
  readonly upstreamStatus?: number | null;
  readonly latencyMs: number;
}

/** One audited call (docs/trusted-calls.md). `params` must already be redacted (see redactForAudit). */
export type AuditRecord = AuditIntent & AuditOutcome;

/** Where the trail's rows go: entries (intents, or whole calls) and the outcomes of intents. */
export interface AuditStore {
  /**
   * With `ids`, returns the entries' ids, in the order given; without, may return none (reading the ids back costs
   * the database and the client about a quarter of a one-row insert).
   */
  insertEntries(rows: readonly NewAuditEntry[], ids: boolean): Promise<readonly string[]>;
  insertOutcomes(rows: readonly NewAuditOutcome[]): Promise<void>;
  /**
   * Resolves once every entry written before the call is readable in the database. A store whose entries are in
   * the database when `insertEntries` resolves has none; a spool (AuditSpool) ships them a little later.
   */
  caughtUp?(): Promise<void>;
  /**
   * Throws (AuditUnavailableError) when the store cannot take an entry now, e.g. a spool whose backlog is full.
   * Asked before a call runs, so that a call the trail could not record is refused before it does anything.
   */
  admit?(): void;
}

/** A call whose intent is being written; `finish` records its outcome. */
export interface AuditedCall {
  /**
   * Resolves once the intent is durable and the outcome committed (flushed to disk or not: the outcome store's
   * setting). A caller that awaits it before answering never answers a call the trail does not fully hold.
   */
  finish(outcome: AuditOutcome): Promise<void>;
}

const MAX_BATCH = 500;

/** An entry waiting for its write; `sent` once a write took it; `id` when its id is needed (an intent's outcome). */
interface PendingEntry {
  readonly row: NewAuditEntry;
  id: boolean;
  sent: boolean;
}

/**
 * Group commit: items that arrive while a write is in flight wait for it and then leave together in one write.
 * Under load, one round trip per batch, not per item; alone, one round trip and no added wait.
 */
class GroupWriter<Item, Result> {
  readonly #write: (items: Item[]) => Promise<Result[]>;
  readonly #waiting: { item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void }[] = [];
  #writing = false;

  constructor(write: (items: Item[]) => Promise<Result[]>) {
    this.#write = write;
  }

  /**
   * `gather`: more items are likely to come soon (other calls are in flight), so a write that would start now starts
   * at the end of this turn of the event loop instead (setImmediate) and takes every item pushed during the turn: the
   * answers a busy process finishes in one turn share one INSERT rather than the first going alone.
   */
  push(item: Item, gather = false): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      if (this.#writing) return;
      if (!gather) {
        void this.#drain();
        return;
      }
      this.#writing = true;
      setImmediate(() => void this.#drain());
    });
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    try {
      while (this.#waiting.length > 0) {
        const batch = this.#waiting.splice(0, MAX_BATCH);
        try {
          const results = await this.#write(batch.map((w) => w.item));
          for (const [i, w] of batch.entries()) w.resolve(results[i] as Result);
        } catch (error) {
          for (const w of batch) w.reject(error ?? new Error('audit insert failed'));
        }
      }
    } finally {
      this.#writing = false;
    }
  }
}

/**
 * The audit trail's writer. Awaiting `finish` (or `record`) before answering means an answered call is always in
 * the trail, with its outcome. With intents (AUDIT_COMMIT=intent), a call is two append-only rows: `begin` writes
 * its intent (who, what, params, request id) at once while the call runs, so its disk flush overlaps the call, and
 * `finish` adds the outcome (status, error, latency); the store should then flush entries to disk and may leave
 * outcomes unflushed. Without (the default), `finish` writes the whole call in one row, the cheapest. `record`
 * writes a whole call in one row (where the params are known only at the end).
 *
 * @example
 * const call = audit.begin({ organizationId, clientId, source: 'api', action: 'execute.create', params });
 * // ... the upstream call ...
 * await call.finish({ status: 200, latencyMs: 12 });
 */
export class AuditLog {
  readonly #entries: GroupWriter<PendingEntry, string | undefined>;
  readonly #outcomes: GroupWriter<NewAuditOutcome, undefined>;
  readonly #intents: boolean;
  readonly #store: AuditStore;
  /** Calls begun (without intents) and not yet finished: whether an entry is likely to have company soon. */
  #running = 0;

  /**
   * `options.intents` false: `begin` writes nothing until `finish`, which writes the whole call in one row (fewer
   * writes; the entry is then as durable as `store` commits it). `options.outcomes`: where outcomes go (default
   * `store`).
   */
  constructor(
    store: AuditStore,
    options: { readonly outcomes?: Pick<AuditStore, 'insertOutcomes'>; readonly intents?: boolean } = {},
  ) {
    const outcomes = options.outcomes ?? store;
    this.#store = store;
    this.#intents = options.intents ?? true;
    this.#entries = new GroupWriter(async (pending) => {
      for (const entry of pending) entry.sent = true;
      const ids = await store.insertEntries(
        pending.map((entry) => entry.row),
        pending.some((entry) => entry.id),
      );
      return pending.map((_, i) => ids[i]);
    });
    this.#outcomes = new GroupWriter(async (rows) => {
      await outcomes.insertOutcomes(rows);
      return rows.map(() => undefined);
    });
  }

  /** Resolves once every call this process answered so far is readable in the trail (GET /api/v1/audit). */
  async caughtUp(): Promise<void> {
    await this.#store.caughtUp?.();
  }

  /** Throws (AuditUnavailableError) when the trail cannot take an entry now: ask before a call runs. */
  admit(): void {
    this.#store.admit?.();
  }

  /** Writes a whole call in one row; resolves once it is durable. */
  async record(entry: AuditRecord): Promise<void> {
    await this.#entries.push({ row: { ...rowOf(entry), ...outcomeColumns(entry) }, id: false, sent: false });
  }

  /** Starts writing the call's intent now; the returned call's `finish` adds the outcome. */
  begin(intent: AuditIntent): AuditedCall {
    if (!this.#intents) {
      // The row (its params' JSON, the text checks) is made now, while the call runs, not on the answer's path.
      const row = rowOf(intent);
      this.#running++;
      let finished = false;
      return {
        finish: async (outcome) => {
          if (!finished) this.#running--;
          finished = true;
          // Alone, the entry leaves at once; with other calls running, it waits for the ones answered in this turn.
          const gather = this.#running > 0;
          await this.#entries.push({ row: { ...row, ...outcomeColumns(outcome) }, id: false, sent: false }, gather);
        },
      };
    }
    const pending: PendingEntry = { row: rowOf(intent), id: true, sent: false };
    const entryId = this.#entries.push(pending);
    // Awaited by finish; a call that never finishes (its process ended) leaves its intent alone in the trail.
    entryId.catch(() => undefined);
    return {
      finish: async (outcome) => {
        if (!pending.sent) {
          // Answered before its intent left (it waited behind another write): one whole row instead of two, whose
          // id nobody needs now.
          Object.assign(pending.row, outcomeColumns(outcome));
          pending.id = false;
          await entryId;
          return;
        }
        const id = await entryId;
        if (id === undefined) throw new Error('the audit store returned no id for an intent');
        await this.#outcomes.push({
          entryId: id,
          status: outcome.status,
          errorCode: textOrNull(outcome.errorCode),
          upstreamStatus: outcome.upstreamStatus ?? null,
          latencyMs: roundedMs(outcome.latencyMs),
        });
      },
    };
  }
}

function outcomeColumns(outcome: AuditOutcome) {
  return {
    status: outcome.status,
    error_code: textOrNull(outcome.errorCode),
    upstream_status: outcome.upstreamStatus ?? null,
    latency_ms: roundedMs(outcome.latencyMs),
  };
}

function roundedMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

function rowOf(entry: AuditIntent): NewAuditEntry {
  return {
    at: entry.at ?? null,
    organization_id: text(entry.organizationId),
    client_id: textOrNull(entry.clientId),
    connector_id: textOrNull(entry.connectorId),
    source: entry.source,
    action: text(entry.action),
    entity: textOrNull(entry.entity),
    params: entry.params === undefined ? null : jsonText(entry.params),
    idempotency_key: textOrNull(entry.idempotencyKey),
    status: null,
    error_code: null,
    upstream_status: null,
    latency_ms: null,
    request_id: textOrNull(entry.requestId),
  };
}

// Postgres text and jsonb hold no NUL character: a caller's NUL (in a path, a param) is kept as U+FFFD, so the
// call is still audited rather than refused. So is a lone UTF-16 surrogate (JSON.parse of a body's "\ud800" makes
// one): not UTF-8, Postgres refuses it in JSON (its `\ud800` escape), and the writer sends batches and params as JSON.
function text(value: string): string {
  return (value.includes('\0') ? value.replaceAll('\0', '\ufffd') : value).toWellFormed();
}

function textOrNull(value: string | null | undefined): string | null {
  return value == null ? null : text(value);
}

// Of the \u escapes JSON.stringify writes (control characters, lone surrogates; a surrogate pair is written as is),
// Postgres refuses a NUL (\u0000) and a lone surrogate (\ud800 to \udfff). An escaped backslash before them
// (\\u0000) makes them text, not escapes.
const NUL_OR_LONE_SURROGATE = /(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/g;

function jsonText(value: unknown): string {
  const json = JSON.stringify(value);
  return json.includes('\\u') ? json.replaceAll(NUL_OR_LONE_SURROGATE, '$1\\ufffd') : json;
}

const SECRET_KEY = /secret|token|password|passwd|api_?key|authorization|credential|cookie|signature|private_?key/i;
const REDACTED = '[REDACTED]';
/** What stands for an object or array nested deeper than the redaction looks: it may hold a secret. */
const TRUNCATED = '[TRUNCATED]';
/** Levels of objects and arrays the redaction walks; bodies are refused beyond 64 levels before they get here. */
const REDACT_DEPTH = 16;

/**
 * A copy of `value` fit for the audit trail: every field named like a secret (or in `secretFields`, e.g. the kind's
 * credential fields) is "[REDACTED]"; an object under such a name keeps its field names, each redacted, so the
 * trail still says which credentials were replaced. An object or array nested deeper than the walk goes is
 * "[TRUNCATED]": unread, it could hold a secret.
 */
export function redactForAudit(value: unknown, secretFields: ReadonlySet<string> = new Set(), depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > REDACT_DEPTH) return TRUNCATED;
  if (Array.isArray(value)) return value.map((v) => redactForAudit(v, secretFields, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => {
      if (!SECRET_KEY.test(key) && !secretFields.has(key)) return [key, redactForAudit(v, secretFields, depth + 1)];
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
        return [key, Object.fromEntries(Object.keys(v).map((k) => [k, REDACTED]))];
      }
      return [key, v === null ? null : REDACTED];
    }),
  );
}
