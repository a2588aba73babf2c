import type { Connector, ExecuteRequest } from '../../packages/connectors/src/core/connect.ts';
import type {
  ConnectorDefinition,
  ConnectorSettings,
  Params,
} from '../../packages/connectors/src/core/define-connector.ts';
import type { Fault } from '../simulators/kit/faults.ts';
import type { ExampleCall, SimulatorHandle } from '../simulators/kit/fixture.ts';
import type { InvalidCase } from './conformance-kit.ts';

export type Json = { data: unknown; meta?: Record<string, unknown> };

/** What a kind's own tests get: the running simulator and connectors bound to it. */
export interface ConformanceHarness<H extends SimulatorHandle> {
  sim(): H;
  connector(settings?: ConnectorSettings, credentials?: Record<string, unknown>, config?: unknown): Connector;
  /** Executes with the default connector and returns the JSON body (fails on a stream). */
  json(entity: string, action: string, params?: Record<string, unknown>): Promise<Json>;
}

/** A call, or one that depends on the simulator's data (ids, customer ids). */
export type RequestOf<H extends SimulatorHandle> = ExecuteRequest | ((sim: H) => ExecuteRequest);

/** A storm of upstream failures the connector must ride out on `request`. */
export interface Storm<H extends SimulatorHandle> {
  readonly label: string;
  readonly fault: Fault;
  readonly request: RequestOf<H>;
  readonly settings?: ConnectorSettings;
}

/** A mid-run resume check: every cut (after page 1, 2, the middle and the last-but-one) resumes without gaps. */
export interface ResumeSpec<H extends SimulatorHandle> {
  readonly entity: string;
  readonly label?: string;
  /** Further pages to cut after. */
  readonly cuts?: readonly number[];
  readonly since?: (sim: H) => string;
  readonly parentParams?: (h: ConformanceHarness<H>) => Promise<Params> | Params;
  readonly minPages?: number;
  /** Exactly this many pages. */
  readonly pages?: number;
  /** Every page but the last holds exactly this many records. */
  readonly pageSize?: number;
  readonly total?: number;
  /** The last page's checkpoint may be non-null (a parent walk remembers the last parent). */
  readonly openEnded?: boolean;
}

export interface ConformanceOptions<H extends SimulatorHandle, C, K> {
  /** The describe title, e.g. `Sentry in direct mode`. */
  readonly name: string;
  readonly definition: ConnectorDefinition<C, K>;
  readonly start: () => Promise<H>;
  /** Settings of every connector the suite makes (after baseUrl/tokenUrl), e.g. `{ retry: FAST_RETRY }`. */
  readonly settings?: ConnectorSettings;
  /** Kind-specific assertions on each example's result, after the common ones. */
  readonly checkExample?: (example: ExampleCall, body: Json | null, sim: H) => void;
  /** Required parameters for which `''` is a valid value; every other one must reject it. */
  readonly emptyAllowed?: readonly string[];
  /** Labels (`missing form_id`, `bound page_size`) or param names the derived invalid cases must include. */
  readonly derivedCovers?: readonly string[];
  /** At least this many derived `missing`/`bound` cases. */
  readonly minDerivedCases?: number;
  /** Kind-specific invalid calls (vendor formats, documented limits). */
  readonly invalid?: readonly InvalidCase[];
  /** Hand-picked unknown entities/actions and a name the error must mention. */
  readonly unsupported?: readonly { entity: string; action: string; mentions: string }[];
  readonly storms: readonly Storm<H>[];
  readonly auth: {
    readonly request: RequestOf<H>;
    /** Defaults to `[sim.badCredentials]`. */
    readonly credentials?: (sim: H) => Record<string, unknown>[];
    /** Defaults to every value of `sim.badCredentials`. */
    readonly secrets?: (sim: H) => string[];
  };
  /** An upstream error body that echoes credentials: redacted, never in the error. */
  readonly echo?: {
    readonly request: RequestOf<H>;
    readonly secrets: (sim: H) => string[];
    readonly fault: (planted: string) => Fault;
  };
  readonly replication:
    | { readonly notApplicable: string }
    | {
        readonly configs?: (sim: H) => unknown[];
        /** Kind-specific checks once every entity has been replicated. */
        readonly verify?: (sim: H) => void;
      };
  readonly resume: { readonly notApplicable: string } | readonly ResumeSpec<H>[];
  /** The kind's own tests, registered in the same describe (after the common ones), on the same simulator. */
  readonly specific?: (h: ConformanceHarness<H>) => void;
}
