import {
  type AnyDefinition,
  checkDefinition,
  compileDefinition,
  connectorTypes,
  type EgressPolicy,
  findConnectorDefinition,
  templateHost,
} from '@conduit/connectors';
import type { ConnectorDefinitionsRepository } from '@conduit/db';
import { LRUCache } from 'lru-cache';

/** A kind as the platform runs it: a built-in one, or an organization's definition compiled (docs/definitions.md). */
export interface ResolvedKind {
  readonly definition: AnyDefinition;
  /** The egress guard of a defined kind; built-in kinds call only their own vendor's hosts. */
  readonly egress?: EgressPolicy;
  /** The active version of a defined kind. */
  readonly version?: number;
}

export interface EgressSettings {
  /** CONNECTOR_EGRESS_ALLOW: `host:port` pairs an operator opened to defined kinds. */
  readonly allow: readonly string[];
  readonly maxResponseBytes: number;
}

/**
 * Every kind a connector may be of: the built-in ones, and the kinds each organization defined, only for that
 * organization. A defined kind resolves to its active version, looked up on every call, so an activation (or a
 * rollback) applies from the next call and run; compiled versions are kept, since a version never changes.
 */
export class KindRegistry {
  readonly #definitions: ConnectorDefinitionsRepository;
  readonly #egress: EgressSettings;
  readonly #compiled = new LRUCache<string, ResolvedKind>({ max: 1000 });

  constructor(deps: { definitions: ConnectorDefinitionsRepository; egress: EgressSettings }) {
    this.#definitions = deps.definitions;
    this.#egress = deps.egress;
  }

  /** The kind named `connectorType` (case-insensitively) for the organization, or undefined. */
  async find(organizationId: string, connectorType: string): Promise<ResolvedKind | undefined> {
    const builtIn = findConnectorDefinition(connectorType);
    if (builtIn) return { definition: builtIn };
    const active = await this.#definitions.active(organizationId, connectorType);
    if (!active) return undefined;
    const key = `${organizationId}\u0000${connectorType.toLowerCase()}\u0000${active.version}`;
    const cached = this.#compiled.get(key);
    if (cached) return cached;
    const check = checkDefinition(active.document, connectorTypes());
    // A stored version passed the same check when it was posted; one that no longer does is not run.
    if (!check.ok) return undefined;
    const definition = compileDefinition(check.definition) as unknown as AnyDefinition;
    const resolved: ResolvedKind = { definition, egress: this.egressOf(check.definition), version: active.version };
    this.#compiled.set(key, resolved);
    return resolved;
  }

  /** The kind of a stored connector. */
  forRow(row: {
    readonly organization_id: string;
    readonly connector_type: string;
  }): Promise<ResolvedKind | undefined> {
    return this.find(row.organization_id, row.connector_type);
  }

  /** The names a connector_type may take for the organization: the built-in kinds and its own. */
  async names(organizationId: string): Promise<string[]> {
    const own = await this.#definitions.list(organizationId);
    return [...connectorTypes(), ...own.filter((d) => d.active_version !== null).map((d) => d.name)];
  }

  /** What a defined kind's calls may reach: the hosts of its own URLs, and what the operator opened. */
  egressOf(document: { readonly base_url: string; readonly auth: unknown }): EgressPolicy {
    const auths = (Array.isArray(document.auth) ? document.auth : [document.auth]) as {
      token_url?: string;
      consent?: { authorize_url?: string };
    }[];
    const urls = [document.base_url, ...auths.flatMap((a) => [a.token_url, a.consent?.authorize_url])];
    const hosts = urls.flatMap((url) => {
      const host = url ? templateHost(url) : null;
      return host ? [host] : [];
    });
    return { hosts, operatorAllow: this.#egress.allow, maxResponseBytes: this.#egress.maxResponseBytes };
  }
}

/**
 * The kind part of a connector's index names: a built-in kind's own name, and for a defined kind its organization
 * and name, so that two organizations' kinds of the same name never share an index (their mappings may differ).
 */
export function indexKindOf(row: { readonly organization_id: string; readonly connector_type: string }): string {
  return findConnectorDefinition(row.connector_type)
    ? row.connector_type
    : `def_${row.organization_id}_${row.connector_type}`;
}
