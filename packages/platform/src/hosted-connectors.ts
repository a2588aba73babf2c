import { type Connector, connect, envSuffix, type TokenCache } from '@conduit/connectors';
import type { ConnectorRow, ConnectorsRepository } from '@conduit/db';
import type { CredentialsCipher } from './credentials-cipher.ts';

export interface UpstreamOverrides {
  readonly baseUrls: Readonly<Record<string, string>>;
  readonly tokenUrls: Readonly<Record<string, string>>;
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

  constructor(deps: {
    cipher: CredentialsCipher;
    connectors: ConnectorsRepository;
    overrides: UpstreamOverrides;
    tokenCache: TokenCache;
    timeoutMs?: number;
    /** Per kind, the observer of every upstream attempt (metrics). */
    observeUpstream?: (kind: string) => (status: number | null) => void;
  }) {
    this.#cipher = deps.cipher;
    this.#connectors = deps.connectors;
    this.#overrides = deps.overrides;
    this.#tokenCache = deps.tokenCache;
    this.#timeoutMs = deps.timeoutMs ?? 30_000;
    this.#observe = deps.observeUpstream;
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

  /** A connector for credentials not yet stored (create and PATCH re-check them). */
  forCredentials(connectorType: string, credentials: unknown, config: unknown): Connector {
    return connect(connectorType, credentials, config, this.settingsFor(connectorType));
  }

  /** `observe` also sees every upstream attempt's status (the audit trail's upstream status of a live call). */
  forRow(row: ConnectorRow, observe?: (status: number | null) => void): Connector {
    const credentials = this.#cipher.decrypt(row.credentials_ciphertext) as Record<string, unknown>;
    const settings = this.settingsFor(row.connector_type);
    const metrics = settings.onUpstreamResponse;
    return connect(row.connector_type, credentials, row.config, {
      ...settings,
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
