import { intervalMs, type Logger, type PlatformEnv, type PlatformServices } from '@conduit/platform';

export interface RetentionDeps {
  readonly env: Pick<PlatformEnv, 'AUDIT_RETENTION' | 'RETENTION_INTERVAL'>;
  readonly logger: Logger;
  readonly auditEntries: Pick<PlatformServices['auditEntries'], 'purge'>;
  readonly idempotencyKeys: Pick<PlatformServices['idempotencyKeys'], 'purgeExpired'>;
}

/**
 * Removes audit entries older than AUDIT_RETENTION (through the database's audit_purge, the only way rows leave
 * the append-only trail) and idempotency keys past their 24 h, now and then every RETENTION_INTERVAL. Every worker
 * may run it: the deletes are idempotent.
 */
export function startRetention(deps: RetentionDeps): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const tick = async () => {
    try {
      const audit = await deps.auditEntries.purge(intervalMs(deps.env.AUDIT_RETENTION));
      const keys = await deps.idempotencyKeys.purgeExpired();
      if (audit + keys > 0)
        deps.logger.info('retention removed old rows', { audit_entries: audit, idempotency_keys: keys });
    } catch (error) {
      deps.logger.warn('retention failed', { error });
    }
    if (!stopped) timer = setTimeout(tick, intervalMs(deps.env.RETENTION_INTERVAL));
  };
  void tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
