import type { NewAuditEntry } from '@conduit/db';

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

/** Where the trail's rows go: one row per call, in the database when `insertEntries` resolves. */
export interface AuditStore {
  /** With `ids`, returns the entries' ids, in the order given; without, may return none. */
  insertEntries(rows: readonly NewAuditEntry[], ids: boolean): Promise<readonly string[]>;
}

/** A call being audited; `finish` records it with its outcome. */
export interface AuditedCall {
  /**
   * Resolves once the call's entry is committed. A caller that awaits it before answering never answers a call the
   * trail does not hold.
   */
  finish(outcome: AuditOutcome): Promise<void>;
}

const MAX_BATCH = 500;

/**
 * Group commit: items that arrive while a write is in flight wait for it and then leave together in one write.
 * Under load, one round trip per batch, not per item; alone, one round trip and no added wait.
 */
class GroupWriter<Item> {
  readonly #write: (items: Item[]) => Promise<void>;
  readonly #waiting: { item: Item; resolve: () => void; reject: (error: unknown) => void }[] = [];
  #writing = false;

  constructor(write: (items: Item[]) => Promise<void>) {
    this.#write = write;
  }

  /**
   * `gather`: more items are likely to come soon (other calls are in flight), so a write that would start now starts
   * at the end of this turn of the event loop instead (setImmediate) and takes every item pushed during the turn: the
   * answers a busy process finishes in one turn share one INSERT rather than the first going alone.
   */
  push(item: Item, gather = false): Promise<void> {
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
          await this.#write(batch.map((w) => w.item));
          for (const w of batch) w.resolve();
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
 * The audit trail's writer: one row per call, written when the call finishes and committed (flushed to disk, the
 * store's setting) before `finish` resolves, so an answered call is always in the trail with its outcome
 * (docs/trusted-calls.md). Rows of calls finishing together share one INSERT.
 *
 * @example
 * const call = audit.begin({ organizationId, clientId, source: 'api', action: 'execute.create', params });
 * // ... the upstream call ...
 * await call.finish({ status: 200, latencyMs: 12 });
 */
export class AuditLog {
  readonly #entries: GroupWriter<NewAuditEntry>;
  /** Calls begun and not yet finished: whether an entry is likely to have company soon. */
  #running = 0;

  constructor(store: AuditStore) {
    this.#entries = new GroupWriter(async (rows) => {
      await store.insertEntries(rows, false);
    });
  }

  /** Writes a whole call in one row (where the params are known only at the end); resolves once it is committed. */
  async record(entry: AuditRecord): Promise<void> {
    await this.#entries.push({ ...rowOf(entry), ...outcomeColumns(entry) });
  }

  /** A call that starts now; its `finish` writes its row with the outcome. */
  begin(intent: AuditIntent): AuditedCall {
    // The row (its params' JSON, the text checks) is made now, while the call runs, not on the answer's path.
    const row = rowOf(intent);
    this.#running++;
    let finished = false;
    return {
      finish: async (outcome) => {
        if (!finished) this.#running--;
        finished = true;
        // Alone, the entry leaves at once; with other calls running, it waits for the ones answered in this turn.
        await this.#entries.push({ ...row, ...outcomeColumns(outcome) }, this.#running > 0);
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
