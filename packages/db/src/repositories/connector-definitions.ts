import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.ts';

export interface DefinitionVersion {
  readonly version: number;
  readonly created_at: Date;
  readonly activated_at: Date | null;
}

export interface DefinitionSummary {
  readonly name: string;
  readonly active_version: number | null;
  readonly versions: readonly DefinitionVersion[];
}

export interface ActiveDefinition {
  readonly name: string;
  readonly version: number;
  readonly document: Record<string, unknown>;
}

/**
 * The connector kinds an organization defined (docs/definitions.md), scoped by organization in every query: another
 * organization's kind does not exist for the caller. Versions are appended, never changed.
 */
export class ConnectorDefinitionsRepository {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** How many kinds the organization defined (its quota counts them). */
  async count(organizationId: string): Promise<number> {
    const row = await this.#db
      .selectFrom('connector_definitions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * Appends a version of the kind `name` (the first creates the kind, and is active at once); returns its number.
   * Concurrent posts of one name get consecutive versions: the kind's row is locked while the next is numbered.
   */
  async addVersion(
    organizationId: string,
    name: string,
    document: unknown,
  ): Promise<{ version: number; created: boolean }> {
    const nameKey = name.toLowerCase();
    return this.#db.transaction().execute(async (tx) => {
      const inserted = await tx
        .insertInto('connector_definitions')
        .values({ organization_id: organizationId, name_key: nameKey, name, active_version: null })
        .onConflict((oc) => oc.doNothing())
        .returning('name_key')
        .executeTakeFirst();
      await tx
        .selectFrom('connector_definitions')
        .select('name_key')
        .where('organization_id', '=', organizationId)
        .where('name_key', '=', nameKey)
        .forUpdate()
        .executeTakeFirstOrThrow();
      const last = await tx
        .selectFrom('connector_definition_versions')
        .select((eb) => eb.fn.max('version').as('v'))
        .where('organization_id', '=', organizationId)
        .where('name_key', '=', nameKey)
        .executeTakeFirst();
      const version = Number(last?.v ?? 0) + 1;
      const first = version === 1;
      await tx
        .insertInto('connector_definition_versions')
        .values({
          organization_id: organizationId,
          name_key: nameKey,
          version,
          document: JSON.stringify(document),
          activated_at: first ? new Date() : null,
        })
        .execute();
      if (first) {
        await tx
          .updateTable('connector_definitions')
          .set({ active_version: 1, name })
          .where('organization_id', '=', organizationId)
          .where('name_key', '=', nameKey)
          .execute();
      }
      return { version, created: inserted !== undefined };
    });
  }

  async list(organizationId: string): Promise<DefinitionSummary[]> {
    const kinds = await this.#db
      .selectFrom('connector_definitions')
      .select(['name', 'name_key', 'active_version'])
      .where('organization_id', '=', organizationId)
      .orderBy('name_key')
      .execute();
    const versions = await this.#db
      .selectFrom('connector_definition_versions')
      .select(['name_key', 'version', 'created_at', 'activated_at'])
      .where('organization_id', '=', organizationId)
      .orderBy('version')
      .execute();
    return kinds.map((kind) => ({
      name: kind.name,
      active_version: kind.active_version,
      versions: versions
        .filter((v) => v.name_key === kind.name_key)
        .map(({ version, created_at, activated_at }) => ({ version, created_at, activated_at })),
    }));
  }

  async find(organizationId: string, name: string): Promise<DefinitionSummary | undefined> {
    return (await this.list(organizationId)).find((kind) => kind.name.toLowerCase() === name.toLowerCase());
  }

  /** One version's document, or undefined. */
  async version(organizationId: string, name: string, version: number): Promise<Record<string, unknown> | undefined> {
    const row = await this.#db
      .selectFrom('connector_definition_versions')
      .select('document')
      .where('organization_id', '=', organizationId)
      .where('name_key', '=', name.toLowerCase())
      .where('version', '=', version)
      .executeTakeFirst();
    return row?.document;
  }

  /** The version connectors of the kind use now (one primary-key probe and one join). */
  async active(organizationId: string, name: string): Promise<ActiveDefinition | undefined> {
    const row = await this.#db
      .selectFrom('connector_definitions as d')
      .innerJoin('connector_definition_versions as v', (join) =>
        join
          .onRef('v.organization_id', '=', 'd.organization_id')
          .onRef('v.name_key', '=', 'd.name_key')
          .onRef('v.version', '=', 'd.active_version'),
      )
      .select(['d.name', 'v.version', 'v.document'])
      .where('d.organization_id', '=', organizationId)
      .where('d.name_key', '=', name.toLowerCase())
      .executeTakeFirst();
    return row;
  }

  /** Makes `version` the one in use (a rollback is activating an older one); false when there is no such version. */
  async activate(organizationId: string, name: string, version: number): Promise<boolean> {
    return this.#db.transaction().execute(async (tx) => {
      const updated = await tx
        .updateTable('connector_definition_versions')
        .set({ activated_at: new Date() })
        .where('organization_id', '=', organizationId)
        .where('name_key', '=', name.toLowerCase())
        .where('version', '=', version)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) return false;
      await tx
        .updateTable('connector_definitions')
        .set({ active_version: version })
        .where('organization_id', '=', organizationId)
        .where('name_key', '=', name.toLowerCase())
        .execute();
      return true;
    });
  }

  /** How many of the organization's connectors are of the kind. */
  async connectorsUsing(organizationId: string, name: string): Promise<number> {
    const row = await this.#db
      .selectFrom('connectors')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', organizationId)
      .where(sql<string>`lower(connector_type)`, '=', name.toLowerCase())
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Removes the kind and its versions; false when there was none. The caller checks it is not in use. */
  async delete(organizationId: string, name: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('connector_definitions')
      .where('organization_id', '=', organizationId)
      .where('name_key', '=', name.toLowerCase())
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
