import type { CredentialsCipher } from '@conduit/config';
import {
  type Connector,
  type ConnectorSettings,
  connectWith,
  egressFetch,
  envSuffix,
  type TokenCache,
} from '@conduit/connectors';
import type { ConnectorRow, ConnectorsRepository } from '@conduit/db';
import type { KindRegistry, ResolvedKind } from './kind-registry.ts';
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
  readonly #kinds: KindRegistry;

  constructor(deps: {
    kinds: KindRegistry;
    cipher: CredentialsCipher;
    connectors: ConnectorsRepository;
    overrides: UpstreamOverrides;
    tokenCache: TokenCache;
    timeoutMs?: number;
    /** Per kind, the observer of every upstream attempt (metrics). */
    observeUpstream?: (kind: string) => (status: number | null) => void;
    /** One upstream budget per connector, shared by every process; none: calls are not paced. */
    budgets?: UpstreamBudgets;
  }) {
    this.#cipher = deps.cipher;
    this.#connectors = deps.connectors;
    this.#overrides = deps.overrides;
    this.#tokenCache = deps.tokenCache;
    this.#timeoutMs = deps.timeoutMs ?? 30_000;
    this.#observe = deps.observeUpstream;
    this.#budgets = deps.budgets;
    this.#kinds = deps.kinds;
  }

  /** Every kind a connector may be of: built in, or defined by the connector's organization. */
  get kinds(): KindRegistry {
    return this.#kinds;
  }

  /**
   * Where a kind's calls go and how: a built-in kind's upstream overrides (CONNECTOR_BASE_URL_<KIND>), or a defined
   * kind's egress guard, through which every one of its calls passes (docs/security.md).
   */
  settingsFor(kind: ResolvedKind): ConnectorSettings {
    const connectorType = kind.definition.catalog.connectorType;
    const suffix = envSuffix(connectorType);
    if (kind.egress) {
      return {
        fetch: egressFetch(kind.egress),
        tokenCache: this.#tokenCache,
        timeoutMs: this.#timeoutMs,
        ...(this.#observe ? { onUpstreamResponse: this.#observe('defined') } : {}),
      };
    }
    return {
      baseUrl: this.#overrides.baseUrls[suffix],
      tokenUrl: this.#overrides.tokenUrls[suffix],
      tokenCache: this.#tokenCache,
      timeoutMs: this.#timeoutMs,
      ...(this.#observe ? { onUpstreamResponse: this.#observe(connectorType) } : {}),
    };
  }

  /** The connector's budget: its id and the limit in force (the deployment's override, else the documented one). */
  budgetSubject(
    row: Pick<ConnectorRow, 'id' | 'connector_type'>,
    kind: ResolvedKind,
  ): {
    connectorId: string;
    kind: string;
    perSecond: number | null;
  } {
    const override = kind.egress ? undefined : this.#overrides.rateLimits?.[envSuffix(row.connector_type)];
    const documented = kind.definition.catalog.rateLimit.perSecond;
    return { connectorId: row.id, kind: row.connector_type, perSecond: override ?? documented };
  }

  /** A connector for credentials not yet stored (create and PATCH re-check them). */
  forCredentials(kind: ResolvedKind, credentials: unknown, config: unknown): Connector {
    return connectWith(kind.definition, credentials, config, this.settingsFor(kind));
  }

  /**
   * The connector of a stored row, drawing its upstream calls from the connector's budget in `lane` (sync pages
   * give way to live calls). `observe` also sees every upstream attempt's status (the audit trail's).
   */
  async forRow(
    row: ConnectorRow,
    options: { lane?: BudgetLane; observe?: (status: number | null) => void; kind?: ResolvedKind } = {},
  ): Promise<Connector> {
    const { lane = 'live', observe } = options;
    const kind = options.kind ?? (await this.#kinds.forRow(row));
    if (!kind) throw new Error(`connector ${row.id}: its kind ${row.connector_type} no longer exists`);
    const credentials = this.#cipher.decrypt(row.credentials_ciphertext) as Record<string, unknown>;
    const settings = this.settingsFor(kind);
    const budget = this.#budgets?.gate(this.budgetSubject(row, kind), lane);
    const metrics = settings.onUpstreamResponse;
    return connectWith(kind.definition, credentials, row.config, {
      ...settings,
      ...(budget ? { budget } : {}),
      ...(observe
        ? {
            onUpstreamResponse: (status: number | null) => {
              metrics?.(status);
              observe(status);
            },
          }
        : {}),
      onCredentialsRotated: async (rotated) => {
        await this.#connectors.replaceCredentials(row.id, this.#cipher.encrypt({ ...credentials, ...rotated }));
      },
    });
  }
}
