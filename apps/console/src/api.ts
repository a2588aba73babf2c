/** The public API as the console uses it: a bearer token, JSON in and out, problem+json errors as values. */
import type {
  ChangesPage,
  ConnectorView as ClientConnectorView,
  WebhookDelivery,
  WebhookEndpoint,
} from '@conduit/client';

export type { ChangeEvent, EntityStatus, WebhookDelivery, WebhookEndpoint } from '@conduit/client';

export interface FieldProblem {
  path: string;
  message: string;
}

/** RFC 9457 problem details (docs/api.md). */
export interface Problem {
  type?: string;
  title: string;
  status: number;
  detail?: string;
  code?: string;
  errors?: FieldProblem[];
  upstream?: { status: number | null; body: string | null };
}

export class ProblemError extends Error {
  readonly problem: Problem;
  constructor(problem: Problem) {
    super(problem.detail ?? problem.title);
    this.problem = problem;
  }
}

/** A connector as the API shows it (the client SDK's view), keeping fields the console does not name. */
export interface ConnectorView extends ClientConnectorView {
  [extra: string]: unknown;
}

export interface SearchableField {
  path: string;
  type: string;
  nullable: boolean;
  enum?: string[];
}

export interface EntityInfo {
  name: string;
  record_key: string;
  actions: string[];
  params: Record<string, JsonSchema>;
  searchable: SearchableField[];
  sync_mode: string | null;
}

export interface KindInfo {
  connector_type: string;
  purpose: string;
  oauth: boolean;
  credentials: JsonSchema;
  config: JsonSchema;
  replication_config: JsonSchema;
  entities: EntityInfo[];
}

/** The subset of JSON Schema (2020-12) that zod emits for our catalogs. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  description?: string;
  default?: unknown;
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  additionalProperties?: boolean | JsonSchema;
}

/** One entry of the audit trail (GET /api/v1/audit). */
export interface AuditEntry {
  id: string;
  at: string;
  client_id: string | null;
  connector_id: string | null;
  source: string;
  action: string;
  entity: string | null;
  params: unknown;
  idempotency_key: string | null;
  /** null (with latency_ms): no outcome was recorded, the API process ended before answering. */
  status: number | null;
  error_code: string | null;
  upstream_status: number | null;
  latency_ms: number | null;
  request_id: string | null;
}

export interface AuditPage {
  data: AuditEntry[];
  meta: { cursor: string | null; has_more: boolean };
}

export interface ExecuteJson {
  data: unknown;
  meta?: Record<string, unknown>;
}

/** One page of `POST .../sql` (docs/sql.md). */
export interface SqlPage {
  data: Record<string, unknown>[];
  meta: {
    columns: { name: string; type: string; approximate?: { precision_threshold: number } }[];
    has_more: boolean;
    cursor: string | null;
    took_ms: number | null;
    synced_at: string | null;
    total?: { value: number; exact: boolean };
  };
}

export interface DownloadedFile {
  download: { contentType: string; size: number; filename: string | null; url: string };
}

const TOKEN_KEY = 'conduit.console.token';

/** Where a problem came from when the body was not problem+json (a proxy's HTML 502, a network failure). */
function fallbackProblem(status: number, text: string): Problem {
  return { title: status === 0 ? 'Network error' : `HTTP ${status}`, status, detail: text.slice(0, 500) };
}

async function problemOf(response: Response): Promise<Problem> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as Problem;
    if (typeof body === 'object' && body && typeof body.title === 'string') return body;
  } catch {
    // not JSON: fall through
  }
  return fallbackProblem(response.status, text);
}

export class Api {
  #token: string | null;
  readonly #base: string;
  onUnauthorized: (() => void) | null = null;

  constructor(base = '') {
    this.#base = base;
    this.#token = sessionStorage.getItem(TOKEN_KEY);
  }

  get signedIn(): boolean {
    return this.#token !== null;
  }

  /** Client-credentials grant; only the token is kept (session storage), never the secret. */
  async signIn(clientId: string, clientSecret: string): Promise<void> {
    const body = await this.#send<{ access_token: string }>('POST', '/api/v1/oauth/token', {
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    });
    this.#token = body.access_token;
    sessionStorage.setItem(TOKEN_KEY, body.access_token);
  }

  signOut(): void {
    this.#token = null;
    sessionStorage.removeItem(TOKEN_KEY);
  }

  catalog(): Promise<{ kinds: KindInfo[] }> {
    return this.#send('GET', '/api/v1/catalog');
  }

  async listConnectors(): Promise<ConnectorView[]> {
    const body = await this.#send<{ data: ConnectorView[] } | ConnectorView[]>(
      'GET',
      '/api/v1/integrations/connectors',
    );
    return Array.isArray(body) ? body : body.data;
  }

  getConnector(id: string): Promise<ConnectorView> {
    return this.#send('GET', `/api/v1/integrations/connectors/${encodeURIComponent(id)}`);
  }

  createConnector(body: Record<string, unknown>): Promise<ConnectorView> {
    return this.#send('POST', '/api/v1/integrations/connectors', body);
  }

  deleteConnector(id: string): Promise<void> {
    return this.#send('DELETE', `/api/v1/integrations/connectors/${encodeURIComponent(id)}`);
  }

  sync(id: string, body: { entity?: string; mode?: 'incremental' | 'full' }): Promise<unknown> {
    return this.#send('POST', `/api/v1/integrations/connectors/${encodeURIComponent(id)}/sync`, body);
  }

  /** A page of the connector's change feed (`after`: a cursor, or `latest`). */
  changes(id: string, query: { after?: string; limit?: number } = {}): Promise<ChangesPage> {
    const search = new URLSearchParams();
    if (query.after !== undefined) search.set('after', query.after);
    if (query.limit !== undefined) search.set('limit', String(query.limit));
    return this.#send('GET', `/api/v1/integrations/connectors/${encodeURIComponent(id)}/changes?${search}`);
  }

  async listWebhookEndpoints(): Promise<WebhookEndpoint[]> {
    return (await this.#send<{ data: WebhookEndpoint[] }>('GET', '/api/v1/webhook-endpoints')).data;
  }

  createWebhookEndpoint(body: Record<string, unknown>): Promise<WebhookEndpoint & { secret: string }> {
    return this.#send('POST', '/api/v1/webhook-endpoints', body);
  }

  updateWebhookEndpoint(id: string, body: Record<string, unknown>): Promise<WebhookEndpoint> {
    return this.#send('PATCH', `/api/v1/webhook-endpoints/${encodeURIComponent(id)}`, body);
  }

  deleteWebhookEndpoint(id: string): Promise<void> {
    return this.#send('DELETE', `/api/v1/webhook-endpoints/${encodeURIComponent(id)}`);
  }

  async webhookDeliveries(id: string): Promise<WebhookDelivery[]> {
    const path = `/api/v1/webhook-endpoints/${encodeURIComponent(id)}/deliveries?limit=20`;
    return (await this.#send<{ data: WebhookDelivery[] }>('GET', path)).data;
  }

  replayWebhooks(id: string, after: string): Promise<{ connector_ids: string[] }> {
    return this.#send('POST', `/api/v1/webhook-endpoints/${encodeURIComponent(id)}/replay`, { after });
  }

  /** The audit trail, newest first; `filters` are the query parameters (connector_id, action, status, cursor). */
  audit(filters: Record<string, string>): Promise<AuditPage> {
    const query = new URLSearchParams(Object.entries(filters).filter(([, v]) => v !== ''));
    return this.#send('GET', `/api/v1/audit?${query}`);
  }

  oauthInitiate(body: Record<string, unknown>): Promise<{ consent_url: string }> {
    return this.#send('POST', '/api/v1/integrations/connectors/oauth/initiate', body);
  }

  /** Execute; JSON answers come back parsed, downloads as an object URL the page can offer. */
  async execute(
    id: string,
    request: { entity: string; action: string; params: unknown },
  ): Promise<ExecuteJson | DownloadedFile> {
    const response = await this.#fetch(
      'POST',
      `/api/v1/integrations/connectors/${encodeURIComponent(id)}/execute`,
      request,
    );
    const type = response.headers.get('content-type') ?? '';
    if (type.includes('json')) return (await response.json()) as ExecuteJson;
    const blob = await response.blob();
    const disposition = response.headers.get('content-disposition') ?? '';
    const filename = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? null;
    return { download: { contentType: type, size: blob.size, filename, url: URL.createObjectURL(blob) } };
  }

  /** One SELECT over the connector's copy; follow `meta.cursor` for the next page. */
  sql(id: string, body: { query: string; limit?: number; cursor?: string }): Promise<SqlPage> {
    return this.#send('POST', `/api/v1/integrations/connectors/${encodeURIComponent(id)}/sql`, body);
  }

  async #send<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.#fetch(method, path, body);
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  async #fetch(method: string, path: string, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.#token) headers.authorization = `Bearer ${this.#token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${this.#base}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw new ProblemError(fallbackProblem(0, String(error)));
    }
    if (response.ok) return response;
    const problem = await problemOf(response);
    if (response.status === 401 && path !== '/api/v1/oauth/token') {
      this.signOut();
      this.onUnauthorized?.();
    }
    throw new ProblemError(problem);
  }
}

export function asProblem(error: unknown): Problem {
  if (error instanceof ProblemError) return error.problem;
  return { title: 'Unexpected error', status: 0, detail: error instanceof Error ? error.message : String(error) };
}
