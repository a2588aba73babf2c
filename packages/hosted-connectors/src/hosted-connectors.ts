import type { CredentialsCipher } from '@conduit/config';
import { type Connector, connect, envSuffix, findConnectorDefinition, type TokenCache } from '@conduit/connectors';
import type { ConnectorRow, ConnectorsRepository } from '@conduit/db';
import type { BudgetLane, UpstreamBudgets } from './upstream-budget.ts';

export interface UpstreamOverrides {
  readonly baseUrls: Readonly<Record<string, string>>;
  readonly tokenUrls: Readonly<Record<string, string>>;
  /** Requests per second a deployment's plan allows, where it differs from the kind's documented limit. */
  readonly rateLimits?: Readonly<Record<string, number>>;
}

/**
 * Builds live connectors for stored rows: decrypts the credentials only here, points the kind at its
 * configured upstream, and writes rotated OAuth credentials back (encrypted) to the row.
 */
export class HostedConnectors {
  readonly #cipher: CredentialsCipher;
  readonly #connectors: ConnectorsRepository;
  readonly #overrides: UpstreamOverrides;
  readonly #tokenCache: TokenCache;
  readonly #timeoutMs: number;
  readonly #observe: ((kind: string) => (status: number | null) => void) | undefined;
  readonly #budgets: UpstreamBudgets | undefined;
  readonly #count: ((row: ConnectorRow) => void) | undefined;

  constructor(deps: {
    cipher: CredentialsCipher;
    connectors: ConnectorsRepository;
    overrides: UpstreamOverrides;
    tokenCache: TokenCache;
    timeoutMs?: number;
    /** Per kind, the observer of every upstream attempt (metrics). */
    observeUpstream?: (kind: string) => (status: number | null) => void;
    /** One upstream budget per connector, shared by every process; none: calls are not paced. */
    budgets?: UpstreamBudgets;
    /** Counts every upstream attempt of a stored connector (usage per organization). */
    countUpstream?: (row: ConnectorRow) => void;
  }) {
    this.#cipher = deps.cipher;
    this.#connectors = deps.connectors;
    this.#overrides = deps.overrides;
    this.#tokenCache = deps.tokenCache;
    this.#timeoutMs = deps.timeoutMs ?? 30_000;
    this.#observe = deps.observeUpstream;
    this.#budgets = deps.budgets;
    this.#count = deps.countUpstream;
  }

  settingsFor(connectorType: string) {
    const suffix = envSuffix(connectorType);
    return {
      baseUrl: this.#overrides.baseUrls[suffix],
      tokenUrl: this.#overrides.tokenUrls[suffix],
      tokenCache: this.#tokenCache,
      timeoutMs: this.#timeoutMs,
      ...(this.#observe ? { onUpstreamResponse: this.#observe(connectorType) } : {}),
    };
  }

  /** The connector's budget: its id and the limit in force (the deployment's override, else the documented one). */
  budgetSubject(row: Pick<ConnectorRow, 'id' | 'connector_type'>): {
    connectorId: string;
    kind: string;
    perSecond: number | null;
  } {
    const override = this.#overrides.rateLimits?.[envSuffix(row.connector_type)];
    const documented = findConnectorDefinition(row.connector_type)?.catalog.rateLimit.perSecond ?? null;
    return { connectorId: row.id, kind: row.connector_type, perSecond: override ?? documented };
  }

  /** A connector for credentials not yet stored (create and PATCH re-check them). */
  forCredentials(connectorType: string, credentials: unknown, config: unknown): Connector {
    return connect(connectorType, credentials, config, this.settingsFor(connectorType));
  }

  /**
   * The connector of a stored row, drawing its upstream calls from the connector's budget in `lane` (sync pages
   * give way to live calls). `observe` also sees every upstream attempt's status (the audit trail's).
   */
  forRow(row: ConnectorRow, options: { lane?: BudgetLane; observe?: (status: number | null) => void } = {}): Connector {
    const { lane = 'live', observe } = options;
    const credentials = this.#cipher.decrypt(row.credentials_ciphertext) as Record<string, unknown>;
    const settings = this.settingsFor(row.connector_type);
    const budget = this.#budgets?.gate(this.budgetSubject(row), lane);
    const metrics = settings.onUpstreamResponse;
    const count = this.#count;
    return connect(row.connector_type, credentials, row.config, {
      ...settings,
      ...(budget ? { budget } : {}),
      ...(observe || count
        ? {
            onUpstreamResponse: (status: number | null) => {
              metrics?.(status);
              count?.(row);
              observe?.(status);
            },
          }
        : {}),
      onCredentialsRotated: async (rotated) => {
        await this.#connectors.replaceCredentials(row.id, this.#cipher.encrypt({ ...credentials, ...rotated }));
      },
    });
  }
}
