import type { AuditEntriesRepository, NewAuditEntry } from '@conduit/db';

/** One audited call (docs/trusted-calls.md). `params` must already be redacted (see redactForAudit). */
export interface AuditRecord {
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
  /** The HTTP status of the answer. */
  readonly status: number;
  readonly errorCode?: string | null;
  readonly upstreamStatus?: number | null;
  readonly latencyMs: number;
  readonly requestId?: string | null;
  /** When it happened; default now (the database's clock). */
  readonly at?: Date;
}

interface Waiting {
  readonly row: NewAuditEntry;
  readonly done: (error?: unknown) => void;
}

const MAX_BATCH = 500;

/**
 * The audit trail's writer. `record` resolves once the entry is durably in Postgres, so a caller that awaits it
 * before answering never answers an unaudited call. Entries that arrive while an insert is in flight wait for it
 * and then leave together as one multi-row INSERT (group commit): under load, one round trip per batch, not per
 * call; alone, one round trip and no added wait.
 *
 * @example
 * await audit.record({ organizationId, clientId, source: 'api', action: 'webhook_endpoint.create', status: 201,
 *   latencyMs: 12, params: redactForAudit(body) });
 */
export class AuditLog {
  readonly #repository: Pick<AuditEntriesRepository, 'insertMany'>;
  readonly #waiting: Waiting[] = [];
  #writing = false;

  constructor(repository: Pick<AuditEntriesRepository, 'insertMany'>) {
    this.#repository = repository;
  }

  record(entry: AuditRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ row: rowOf(entry), done: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!this.#writing) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    try {
      while (this.#waiting.length > 0) {
        const batch = this.#waiting.splice(0, MAX_BATCH);
        try {
          await this.#repository.insertMany(batch.map((w) => w.row));
          for (const w of batch) w.done();
        } catch (error) {
          for (const w of batch) w.done(error ?? new Error('audit insert failed'));
        }
      }
    } finally {
      this.#writing = false;
    }
  }
}

function rowOf(entry: AuditRecord): NewAuditEntry {
  return {
    ...(entry.at ? { at: entry.at } : {}),
    organization_id: text(entry.organizationId),
    client_id: textOrNull(entry.clientId),
    connector_id: textOrNull(entry.connectorId),
    source: entry.source,
    action: text(entry.action),
    entity: textOrNull(entry.entity),
    params: entry.params === undefined ? null : jsonText(entry.params),
    idempotency_key: textOrNull(entry.idempotencyKey),
    status: entry.status,
    error_code: textOrNull(entry.errorCode),
    upstream_status: entry.upstreamStatus ?? null,
    latency_ms: Math.round(entry.latencyMs * 1000) / 1000,
    request_id: textOrNull(entry.requestId),
  };
}

// Postgres text and jsonb hold no NUL character: a caller's NUL (in a path, a param) is kept as U+FFFD, so the
// call is still audited rather than refused.
function text(value: string): string {
  return value.includes('\0') ? value.replaceAll('\0', '\ufffd') : value;
}

function textOrNull(value: string | null | undefined): string | null {
  return value == null ? null : text(value);
}

function jsonText(value: unknown): string {
  const json = JSON.stringify(value);
  return json.includes('\\u0000') ? json.replaceAll(/(?<!\\)((?:\\\\)*)\\u0000/g, '$1\\ufffd') : json;
}

const SECRET_KEY = /secret|token|password|passwd|api_?key|authorization|credential|cookie|signature|private_?key/i;
const REDACTED = '[REDACTED]';

/**
 * A copy of `value` fit for the audit trail: every field named like a secret (or in `secretFields`, e.g. the kind's
 * credential fields) is "[REDACTED]"; an object under such a name keeps its field names, each redacted, so the
 * trail still says which credentials were replaced.
 */
export function redactForAudit(value: unknown, secretFields: ReadonlySet<string> = new Set(), depth = 0): unknown {
  if (depth > 16 || value === null || typeof value !== 'object') return value;
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
