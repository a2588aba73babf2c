export { createDatabase, ensureDatabaseExists } from './database.ts';
export { migrateToLatest } from './migrate.ts';
export { ClientsRepository, type ClientWithOrganizations } from './repositories/clients.ts';
export { ConnectorsRepository } from './repositories/connectors.ts';
export { type RunRef, type RunWrite, SyncStatesRepository } from './repositories/sync-states.ts';
export type { ConnectorRow, Database, NewConnectorRow, SyncStateRow, SyncStatus } from './schema.ts';
