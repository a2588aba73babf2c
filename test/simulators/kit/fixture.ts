import type { FaultInjector } from './faults.ts';
import type { RunningServer } from './server.ts';
import type { SimulatedWebhooks } from './webhooks.ts';

export interface ExampleCall {
  readonly entity: string;
  readonly action: string;
  readonly params: Record<string, unknown>;
}

/**
 * A running upstream simulator, described so that one generic suite can drive any kind:
 * the credentials it accepts, calls that succeed, and the records replication must end up with.
 */
export interface SimulatorHandle extends RunningServer {
  readonly connectorType: string;
  /** The value for CONNECTOR_BASE_URL_<KIND> (may contain `{subdomain}`). */
  readonly baseUrl: string;
  /** The value for CONNECTOR_TOKEN_URL_<KIND>, for kinds with an OAuth token endpoint. */
  readonly tokenUrl?: string;
  readonly credentials: Record<string, unknown>;
  /** Well-formed credentials the upstream rejects (401/403). */
  readonly badCredentials: Record<string, unknown>;
  readonly config: Record<string, unknown>;
  readonly replicationConfig: Record<string, unknown>;
  readonly faults: FaultInjector;
  /** One successful call per entity × live action that the specification lists (downloads included). */
  readonly examples: readonly ExampleCall[];
  /** The vendor's signed webhooks, for the kinds that send them (docs/api.md). */
  readonly webhooks?: SimulatedWebhooks;
  /** Keys of the records replication must index for `entity` given `replicationConfig` (document ids). */
  expectedKeys(entity: string): string[];
}

export interface SimulatorOptions {
  readonly seed?: number;
  /** Scales the generated data (records per top-level entity, roughly). */
  readonly size?: number;
  readonly port?: number;
  /** Signs issued refresh tokens so that a later run with the same secret honours them (kit/token-mint.ts). */
  readonly tokenSecret?: string;
}

export type StartSimulator = (options?: SimulatorOptions) => Promise<SimulatorHandle>;

/** The generic options as a kind simulator's own: seed and port as they are, `size` under the kind's name for it. */
export function kindOptions<K extends string>(
  options: SimulatorOptions,
  sizeName: K,
): { seed?: number; port?: number } & { [P in K]?: number } {
  return {
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.size === undefined ? {} : { [sizeName]: options.size }),
    ...(options.port === undefined ? {} : { port: options.port }),
  } as { seed?: number; port?: number } & { [P in K]?: number };
}

/** What a kind's handle adds to its running simulator; `baseUrl` defaults to the simulator's URL, `config` to none. */
export type HandleFields = Omit<
  SimulatorHandle,
  keyof RunningServer | 'faults' | 'webhooks' | 'baseUrl' | 'config' | 'replicationConfig'
> & {
  readonly baseUrl?: string;
  readonly config?: Record<string, unknown>;
  /** Where replication starts (replication_config.start_date). */
  readonly startDate: string;
};

/** The generic handle over the running simulator `sim`. */
export function simulatorHandle<S extends RunningServer & Pick<SimulatorHandle, 'faults' | 'webhooks'>>(
  sim: S,
  fields: HandleFields,
): S & SimulatorHandle {
  const { startDate, ...rest } = fields;
  return { ...sim, baseUrl: sim.url, config: {}, ...rest, replicationConfig: { start_date: startDate } };
}
