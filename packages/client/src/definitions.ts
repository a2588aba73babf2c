import type { ConnectorDefinition, DefinitionTestResult } from './generated/api.ts';
import type { Transport } from './transport.ts';

const DEFINITIONS = '/api/v1/connector-definitions';
const definitionPath = (name: string, suffix = '') => `${DEFINITIONS}/${encodeURIComponent(name)}${suffix}`;

/** What a definition test reads with (docs/definitions.md, "The lifecycle"). */
export interface DefinitionTestInput {
  readonly credentials: Record<string, unknown>;
  readonly config?: Record<string, unknown>;
  readonly version?: number;
  readonly entities?: readonly string[];
  readonly max_pages?: number;
  readonly start_date?: string;
}

/**
 * Connector kinds the organization defines at run time, as one JSON document each (docs/definitions.md).
 *
 * @example
 * ```ts
 * await conduit.definitions.validate(definition); // throws ConduitProblem (422) listing every problem
 * const { version } = await conduit.definitions.create(definition);
 * const test = await conduit.definitions.test(definition.name, { credentials: { api_key } });
 * ```
 */
export class ConnectorDefinitions {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** The format as JSON Schema (2020-12). */
  schema(): Promise<Record<string, unknown>> {
    return this.#transport.json('GET', `${DEFINITIONS}/schema`, { safe: true });
  }

  /** Checks a definition without storing it; an invalid one is a ConduitProblem (422 `invalid_definition`). */
  validate(definition: Record<string, unknown>): Promise<{ valid: true }> {
    return this.#transport.json('POST', `${DEFINITIONS}/validate`, { body: definition, safe: true });
  }

  /** Stores a definition: a new kind, or the next version of one. */
  create(definition: Record<string, unknown>): Promise<{ name: string; version: number }> {
    return this.#transport.json('POST', DEFINITIONS, { body: definition, safe: false });
  }

  async list(): Promise<ConnectorDefinition[]> {
    return (await this.#transport.json<{ data: ConnectorDefinition[] }>('GET', DEFINITIONS, { safe: true })).data;
  }

  /** A kind with its versions and the active document. */
  get(name: string): Promise<ConnectorDefinition> {
    return this.#transport.json('GET', definitionPath(name), { safe: true });
  }

  /** Reads the upstream with a version of the kind (the active one by default), writing nothing. */
  test(name: string, input: DefinitionTestInput): Promise<DefinitionTestResult> {
    return this.#transport.json('POST', definitionPath(name, '/test'), { body: input, safe: true });
  }

  /** Makes `version` the one connectors of the kind use (a rollback activates an older one). */
  activate(name: string, version: number): Promise<{ name: string; active_version: number }> {
    return this.#transport.json('POST', definitionPath(name, '/activate'), { body: { version }, safe: false });
  }

  async delete(name: string): Promise<void> {
    await this.#transport.json('DELETE', definitionPath(name), { safe: false });
  }
}
