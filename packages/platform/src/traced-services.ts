import type { RedisClient } from '@conduit/queues';
import { finishedSpan } from '@conduit/tracing';

/** A span per Postgres query (when traces are exported): its operation and statement, never parameter values. */
export function postgresSpan(sql: string, startMs: number, durationMs: number, failed: boolean): void {
  const operation = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'QUERY';
  finishedSpan(
    `postgres ${operation}`,
    { 'db.system': 'postgresql', 'db.operation.name': operation, 'db.query.text': sql.slice(0, 500) },
    startMs,
    durationMs,
    failed,
  );
}

type Command = Parameters<RedisClient['sendCommand']>[0];

/**
 * A span per command of this Redis client (when traces are exported): ioredis has no hook, so this client's
 * `sendCommand` is wrapped; the queues' own connections are BullMQ's and not traced.
 */
export function traceRedisCommands(redis: RedisClient): void {
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = ((command: Command, ...rest: unknown[]) => {
    const startMs = Date.now();
    const started = performance.now();
    const name = (command as { name?: string }).name ?? 'command';
    const end = (failed: boolean) =>
      finishedSpan(
        `redis ${name}`,
        { 'db.system': 'redis', 'db.operation.name': name },
        startMs,
        performance.now() - started,
        failed,
      );
    const promise = (command as { promise?: Promise<unknown> }).promise;
    promise?.then(
      () => end(false),
      () => end(true),
    );
    return (send as (...args: unknown[]) => unknown)(command, ...rest);
  }) as RedisClient['sendCommand'];
}
