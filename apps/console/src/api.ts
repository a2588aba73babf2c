/**
 * The console's use of @conduit/client (every route, request and answer is the client's): sign-in keeps only the
 * bearer token, a 401 signs out, failures become the problem details the pages show, downloads become object URLs.
 */
import {
  type Catalog,
  Conduit,
  type ConduitOptions,
  type ConnectorType,
  type ConnectorView,
  type CreateConnectorInput,
  type Download,
  type ExecuteResult,
  isConduitProblem,
  type ProblemDetails,
} from '@conduit/client';

export type {
  AuditEntry,
  ChangeEvent,
  ConnectorView,
  EntityStatus,
  ExecuteResult,
  SqlResult,
  Usage,
  WebhookDelivery,
  WebhookEndpoint,
} from '@conduit/client';

export type KindInfo = Catalog['kinds'][number];
export type EntityInfo = KindInfo['entities'][number];
export type SearchableField = EntityInfo['searchable'][number];

/** A problem as the console shows it: the API's problem details, or one the console found itself (no code). */
export type Problem = Pick<ProblemDetails, 'title' | 'status'> & Partial<ProblemDetails>;

/** `search` answers: the branch of ExecuteResult with the engine's meta (took_ms, total, aggregations). */
export type SearchAnswer = Extract<ExecuteResult, { meta: { took_ms: number | null } }>;

/** A downloaded file, held by the page as an object URL it can offer to save. */
export interface DownloadedFile {
  download: { contentType: string; size: number; filename: string | null; url: string };
}

type KindFields = 'connector_type' | 'credentials' | 'config' | 'replication_config';
/** The client's create input, the kind picked at run time: its fields as the form built from its schemas holds them. */
type ConnectorForm = Omit<CreateConnectorInput<ConnectorType>, KindFields> & {
  connector_type: string;
  credentials: Record<string, unknown>;
  replication_config: Record<string, unknown>;
  config?: Record<string, unknown>;
};
/** An entity, action and params picked in the console; the API checks them (400 naming the field). */
interface PickedCall {
  entity: string;
  action: string;
  params: unknown;
}

/**
 * The connector client as the console calls it: with an entity and action known only at run time, the catalog's
 * compile-time types cannot apply. The client answers `download` with a Download and every other action as JSON.
 */
interface PickedCalls {
  execute(request: PickedCall & { action: 'search' }): Promise<SearchAnswer>;
  execute(request: PickedCall & { action: 'download' }): Promise<Download>;
  execute(request: PickedCall): Promise<ExecuteResult>;
}

/**
 * A person waits on the other side: one quick retry of a read answered 429 or 503, and a longer Retry-After is
 * shown as the problem at once rather than waited out behind a busy button.
 */
const RETRIES = { maxRetries: 1, maxRetryAfterSeconds: 5 } satisfies Partial<ConduitOptions>;

const TOKEN_KEY = 'conduit.console.token';

export class Api {
  readonly #baseUrl: string;
  #conduit: Conduit | null = null;
  onUnauthorized: (() => void) | null = null;

  constructor(baseUrl = window.location.origin) {
    this.#baseUrl = baseUrl;
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token) this.#conduit = this.#signedIn(token);
  }

  get signedIn(): boolean {
    return this.#conduit !== null;
  }

  /** The client, with the session's token. */
  get conduit(): Conduit {
    if (!this.#conduit) throw new Error('signed out');
    return this.#conduit;
  }

  /** Client-credentials grant through the client; only the token is kept (session storage), never the secret. */
  async signIn(clientId: string, clientSecret: string): Promise<void> {
    const token = await new Conduit({ baseUrl: this.#baseUrl, clientId, clientSecret, ...RETRIES }).token();
    sessionStorage.setItem(TOKEN_KEY, token);
    this.#conduit = this.#signedIn(token);
  }

  signOut(): void {
    this.#conduit = null;
    sessionStorage.removeItem(TOKEN_KEY);
  }

  connector(view: ConnectorView) {
    return this.conduit.connector(view.connector_id, view.connector_type);
  }

  /** A connector from the form generated from the kind's published schemas (the API checks the values). */
  createConnector(input: ConnectorForm): Promise<ConnectorView> {
    return this.conduit.connectors.create(input as unknown as CreateConnectorInput<ConnectorType>);
  }

  /** Execute what the user picked; a download comes back as an object URL the page can offer. */
  execute(view: ConnectorView, request: PickedCall & { action: 'search' }): Promise<SearchAnswer>;
  execute(view: ConnectorView, request: PickedCall): Promise<ExecuteResult | DownloadedFile>;
  async execute(view: ConnectorView, request: PickedCall): Promise<ExecuteResult | DownloadedFile> {
    const calls = this.connector(view) as unknown as PickedCalls;
    if (request.action === 'download') return downloaded(await calls.execute({ ...request, action: 'download' }));
    return calls.execute(request);
  }

  /** A Conduit with a token already held: a 401 means it expired or was revoked, so the console signs out. */
  #signedIn(token: string): Conduit {
    const conduit: Conduit = new Conduit({
      baseUrl: this.#baseUrl,
      accessToken: token,
      ...RETRIES,
      fetch: async (request) => {
        const response = await fetch(request);
        if (response.status === 401 && this.#conduit === conduit) {
          this.signOut();
          this.onUnauthorized?.();
        }
        return response;
      },
    });
    return conduit;
  }
}

async function downloaded(file: Download): Promise<DownloadedFile> {
  const contentType = file.contentType ?? 'application/octet-stream';
  const blob = await new Response(file.body, { headers: { 'content-type': contentType } }).blob();
  const filename = /filename="?([^";]+)"?/.exec(file.contentDisposition ?? '')?.[1] ?? null;
  return { download: { contentType, size: blob.size, filename, url: URL.createObjectURL(blob) } };
}

export function asProblem(error: unknown): Problem {
  if (isConduitProblem(error)) return error.toJSON();
  return { title: 'Unexpected error', status: 0, detail: error instanceof Error ? error.message : String(error) };
}
